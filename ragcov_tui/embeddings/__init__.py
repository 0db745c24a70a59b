"""Embedding providers behind one interface, and the embedding cache."""
