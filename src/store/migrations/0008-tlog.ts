// Migration 0008: the RFC 6962 Merkle tree over the log (docs/audit.md "Transparency log"). One
// row per stored hash of Go's sumdb/tlog layout (src/core/merkle.ts): every leaf hash and every
// complete subtree's hash, by its stored-hash index. Written by writeEntry in the same transaction
// as each log append (live and replay alike), so replay rebuilds it and `audit verify` re-derives
// it from the log (log_tree_mismatch). Stores made before it get the tree of their existing log
// built by backfillTree (src/store/tree.ts) inside the migration's own transaction.
export const TLOG_SQL = `
  CREATE TABLE tlog_hashes (
    idx  INTEGER PRIMARY KEY CHECK (idx >= 0),
    hash BLOB    NOT NULL CHECK (length(hash) = 32)
  ) STRICT;
  CREATE TRIGGER tlog_hashes_no_update BEFORE UPDATE ON tlog_hashes
  BEGIN SELECT RAISE(ABORT, 'governed tree is append-only'); END;
  CREATE TRIGGER tlog_hashes_no_delete BEFORE DELETE ON tlog_hashes
  BEGIN SELECT RAISE(ABORT, 'governed tree is append-only'); END;
`;
