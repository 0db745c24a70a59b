"""Reading and losslessly writing back the user's test file."""
