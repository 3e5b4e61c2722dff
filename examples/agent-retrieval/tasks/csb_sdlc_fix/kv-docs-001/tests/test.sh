#!/bin/bash
set -e
test -f /workspace/docs/architecture.md
grep -q "write-ahead log" docs/architecture.md
grep -q "segment" /workspace/internal/wal/wal.go
echo 1.0 > /logs/verifier/reward.txt
