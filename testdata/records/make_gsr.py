#!/usr/bin/env python3
"""Writes the GSR-framed fixture files of testdata/records (see README.md).

A Glue Schema Registry record is an 18-byte header: the header version (3), the compression
byte (0: none, 5: zlib), the 16 bytes of the schema version id; then the JSON payload, zlib
compressed when the compression byte is 5. Run from this folder: python3 make_gsr.py
"""
import base64
import json
import uuid
import zlib

VERSION = uuid.UUID("6b9e0c1a-3f0e-4a57-9d5e-1c2b3a4d5e6f")
OTHER = uuid.UUID("00000000-0000-4000-8000-000000000001")


def frame(payload: bytes, compression: int = 0, version: uuid.UUID = VERSION, header: int = 3) -> bytes:
    """Any header, even a wrong one; the payload is zlib-compressed when `compression` is 5."""
    body = zlib.compress(payload, 6) if compression == 5 else payload
    return bytes([header, compression]) + version.bytes + body


def gsr(payload: bytes, compress: bool, version: uuid.UUID = VERSION) -> bytes:
    return frame(payload, 5 if compress else 0, version)


def get_records(datas):
    """What `aws kinesis get-records` prints, with each Data base64-encoded."""
    records = [
        {
            "SequenceNumber": "4959033827149025660855969253836157109592157598913658%04d" % (i + 1),
            "ApproximateArrivalTimestamp": "2026-07-09T20:00:0%d+00:00" % i,
            "Data": base64.b64encode(data).decode(),
            "PartitionKey": "pk-%d" % (i + 1),
        }
        for i, data in enumerate(datas)
    ]
    return json.dumps(
        {"Records": records, "NextShardIterator": "AAAAAAAAAAE=", "MillisBehindLatest": 0},
        indent=2,
    ) + "\n"


def main():
    ok = b'{"id": 7, "event_time": "2026-07-09T20:00:00Z"}'
    bad = b'{"id": 8, "event_time": "2026-07-09T20:00:00Z", "name": "far too long a name"}'

    # get-records, json channel: plain records, and one GSR-framed record (gsr-framed).
    with open("get-records/records.json", "w") as f:
        f.write(get_records([ok, bad, gsr(ok, compress=True)]))

    # get-records, gsr-json channel (given by the flag, and by a channel configuration): uncompressed and zlib records, one failing inside the
    # payload, plain JSON (gsr-not-framed), another schema version, an unknown compression byte.
    gsr_batch = get_records([
            gsr(ok, compress=False),
            gsr(ok, compress=True),
            gsr(bad, compress=True),
            ok,
            gsr(ok, compress=False, version=OTHER),
            bytes([3, 9]) + VERSION.bytes + ok,
    ])
    for case in ("get-records-gsr", "channel-config"):
        with open(case + "/records.json", "w") as f:
            f.write(gsr_batch)

    # raw, gsr-json channel, text format: a whole-record GSR failure (no snippet) and a failure inside
    # a zlib payload (the inflated payload is shown).
    with open("text-gsr/gsr-other-version.bin", "wb") as f:
        f.write(gsr(ok, compress=True, version=OTHER))
    with open("text-gsr/gsr-zlib-bad.bin", "wb") as f:
        f.write(gsr(bad, compress=True))

    # raw, json channel, text format: a GSR-framed record (a whole-record failure).
    with open("text-spans/gsr-framed.bin", "wb") as f:
        f.write(gsr(b'{"id": 4, "event_time": "2026-07-09T20:00:00Z"}', compress=False))

    # raw, json channel, ndjson format: the same GSR-framed record among plain ones.
    with open("raw-files/d-gsr-plain.bin", "wb") as f:
        f.write(gsr(b'{"id": 4, "event_time": "2026-07-09T20:00:00Z"}', compress=False))


if __name__ == "__main__":
    main()
