"""Chat providers behind one interface, robust JSON replies, and the LLM cache."""
