"""Loading source documents and cutting them into chunks."""
