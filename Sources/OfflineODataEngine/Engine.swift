// The storage engine: see docs/StorageFormat.md.
