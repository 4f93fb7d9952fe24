#!/bin/bash
# Instructions parq's reader spends per decode case, for comparing two builds:
#   scripts/callgrind_decode.sh PARQ_BENCH_BINARY OUT.tsv
# runs `parq-bench decode` under callgrind for each case and nullability (uncompressed,
# 200,000 values, parq only), counting only inside `ParquetReader::read_all`, and writes
# "case<TAB>nulls<TAB>instructions" lines. Needs valgrind.
set -euo pipefail
bin=$1
out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=("int32 PLAIN" "int64 PLAIN" "double PLAIN" "boolean PLAIN" "flba16 PLAIN" "int32 DICT"
  "int64 DICT" "string DICT" "boolean RLE" "int32 DELTA_BINARY_PACKED"
  "string DELTA_LENGTH_BYTE_ARRAY" "string DELTA_BYTE_ARRAY" "double BYTE_STREAM_SPLIT"
  "table int64+string" "list<int64>" "list<string>" "list<list<int32>>"
  "struct<int32,string,double>" "map<string,int64>" "list<struct<a:int32,b:string>>")
: > "$out"
for c in "${cases[@]}"; do
  for n in required nullable; do
    f=$work/run.out
    valgrind --tool=callgrind --toggle-collect='*ParquetReader*read_all*' \
      --callgrind-out-file="$f" "$bin" decode --values 200000 --codecs uncompressed \
      --nulls "$n" --cases "$c " --impls parq --iters 1 > /dev/null 2>&1
    ir=$(grep -E '^(summary|totals):' "$f" | head -1 | awk '{print $2}')
    printf '%s\t%s\t%s\n' "$c" "$n" "$ir" >> "$out"
  done
done
