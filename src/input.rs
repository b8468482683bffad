//! Input sources: files, standard input, gzip and zstd streams.
