"""What ``enter`` opens on a row: each list row's detail (:mod:`.rows`) and an eval item's page (:mod:`.eval_item`),
stored data laid out as literal text; nothing computed here."""
