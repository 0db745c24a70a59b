"""Vector stores as a corpus and as a system under test: ``lancedb:PATH#TABLE``, ``parquet:FILE``,
``chroma:PATH#COLLECTION``, ``qdrant:PATH#COLLECTION``, ``pgvector:postgresql://…#TABLE``.

:mod:`.registry` parses a spec and opens its reader (each client an optional extra, imported only
when a spec names it); :mod:`.base` is the reader interface; :mod:`.corpus` reads a whole store
into chunks and one float32 matrix. The space check (do the user's embedder and the stored
vectors agree?) lives with the embedders: :mod:`ragcov_tui.embeddings.space_check`.
"""
