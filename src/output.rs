//! Output records: key, tsv and jsonl lines; statistics; diagnostics.
