#!/usr/bin/env bash
# Shell pipelines over a formula file with ltlwit:
#   examples/pipeline.sh [FILE]      (default: examples/formulas.txt)
# ltlwit answers each formula line with one line, in order, so `paste` pairs them up.
set -uo pipefail
file=${1:-"$(dirname "$0")/formulas.txt"}
formulas() { grep -Ev '^[[:space:]]*(#|$)' "$file"; }

echo "== unsatisfiable"
paste <(formulas) <(ltlwit solve -F "$file") | awk -F'\t' '$2 == "UNSAT" { print $1 }'

echo "== witnesses in DeepLTL's notation"
ltlwit solve --syntax-out polish -F "$file" | grep -v -e UNSAT -e UNKNOWN

echo "== answers by source"
ltlwit solve --format json -F "$file" | grep -o '"source": "[^"]*"' | sort | uniq -c

echo "== every witness, checked again by ltlwit verify"
paste <(formulas) <(ltlwit solve -F "$file") | grep -v -e 'UNSAT$' -e 'UNKNOWN$' | ltlwit verify -F - | sort | uniq -c
