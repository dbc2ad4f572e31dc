"""Parses a Prometheus text exposition with prometheus-client's own parser and prints its samples.

    $TESSERA_TEST_PYTHON prometheus_parse.py SCRAPE.txt

Prints one JSON array of {"name", "labels", "value"} (every sample of every family, counters'
`_total` and histograms' `_bucket`/`_count`/`_sum` included). Exits 1 when the text does not parse.
"""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

with open(sys.argv[1], encoding="utf-8") as handle:
    text = handle.read()
samples = []
for family in text_string_to_metric_families(text):
    for sample in family.samples:
        samples.append({"name": sample.name, "labels": sample.labels, "value": sample.value, "type": family.type})
json.dump(samples, sys.stdout)
