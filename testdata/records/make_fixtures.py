import json, os, sys, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gsr import frame
# Writes the fixture folders of testdata/records/ (schema.json, inputs, args). Run from anywhere:
#   python3 testdata/records/make_fixtures.py
# The GSR records are built here byte by byte (header version, compression, schema version id,
# then the JSON text, zlib-compressed by Python's zlib when the compression byte is 5).
R=os.path.dirname(os.path.abspath(__file__))
def case(name, schema, lines=None, args=(), files=None, partition='event_time'):
    d=os.path.join(R,name); os.makedirs(d, exist_ok=True)
    open(os.path.join(d,'schema.json'),'w').write(schema.strip()+'\n')
    a=[]
    if partition: a+=['--partition', partition]
    a+=list(args)
    if lines is not None:
        open(os.path.join(d,'input.ndjson'),'w').write('\n'.join(lines)+'\n')
        a.append('input.ndjson')
    for fname, data in (files or []):
        open(os.path.join(d,fname),'wb').write(data)
        a.append(fname)
    open(os.path.join(d,'args'),'w').write('\n'.join(a)+'\n')

def schema(props, required=('event_time',), draft='draft-07', extra=''):
    props = ['"event_time": {"type": "string", "format": "date-time"}'] + list(props)
    return '{\n  "$schema": "http://json-schema.org/%s/schema#",\n  "type": "object",\n  "properties": {\n%s\n  },\n  "required": %s%s\n}' % (draft, ',\n'.join('    '+p for p in props), json.dumps(list(required)), extra)

T='"event_time": "2026-07-09T20:00:00Z"'
def rec(body=''):
    return '{'+T+(', '+body if body else '')+'}'

VERSION=uuid.UUID('b7f2c1a4-3d5e-4f60-8a9b-0c1d2e3f4a5b')
OTHER=uuid.UUID('00000000-0000-0000-0000-000000000001')
def gsr(payload, compression=0, version=VERSION, header=3):
    return frame(payload, compression, version, header)

# --- one case per reason ---
case('reason-malformed-json', schema(['"id": {"type": "integer"}']), [
    '{"event_time": "2026-07-09T20:00:00Z", "id": 1,',
    'not json',
    '{"event_time": "2026-07-09T20:00:00Z", "id": 1} {"id": 2}',
    "{'event_time': '2026-07-09T20:00:00Z'}",
    rec('"id": 1'),
])
case('reason-gsr-not-framed', schema(['"id": {"type": "integer"}']), [rec('"id": 1')], args=['--record-format','gsr-json'])
case('reason-gsr-framed', schema(['"id": {"type": "integer"}']), args=['--input','raw'], files=[
    ('framed.bin', gsr(rec('"id": 1').encode())),
    ('plain.json', rec('"id": 2').encode()),
])
case('reason-gsr-header', schema(['"id": {"type": "integer"}']), args=['--record-format','gsr-json','--input','raw'], files=[
    ('version-2.bin', gsr(rec('"id": 1').encode(), header=2)),
    ('compression-7.bin', gsr(rec('"id": 2').encode(), compression=7)),
    ('short.bin', bytes([3,0,1,2,3,4,5,6,7,8])),
    ('not-zlib.bin', bytes([3,5]) + VERSION.bytes + rec('"id": 3').encode()),
    ('zlib.bin', gsr(rec('"id": 4').encode(), compression=5)),
])
case('reason-gsr-schema-version', schema(['"id": {"type": "integer"}']), args=['--record-format','gsr-json','--input','raw','--schema-version-id',str(VERSION)], files=[
    ('resolved-version.bin', gsr(rec('"id": 1').encode())),
    ('other-version.bin', gsr(rec('"id": 2').encode(), version=OTHER)),
])
case('reason-missing-required', schema([
    '"id": {"type": "integer"}',
    '"user": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}, "required": ["name"]}'], required=['event_time','id']), [
    rec('"user": {"name": "a"}'),
    rec('"id": 1, "user": {"email": "a@example.com"}'),
    rec('"id": 1'),
    rec('"id": 1, "user": {"name": "a"}'),
])
case('reason-missing-partition', schema([
    '"id": {"type": "integer"}',
    '"meta": {"type": "object", "properties": {"sent_at": {"type": "string", "format": "date-time"}}}'], required=['id']), [
    '{"id": 1}',
    '{"id": 2, "meta": {}}',
    '{"id": 3, "meta": {"sent_at": null}}',
    '{"id": 4, "meta": null}',
    '{"id": 5, "meta": {"sent_at": "2026-07-09T20:00:00Z"}}',
], partition='meta.sent_at')
case('reason-schema-violation', schema([
    '"id": {"type": "integer", "minimum": 1}',
    '"status": {"type": "string", "enum": ["new", "done"]}',
    '"code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3}',
    '"email": {"type": "string", "format": "email"}',
    '"shape": {"type": "object", "properties": {"w": {"type": "number"}}, "additionalProperties": false}',
    '"either": {"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 4}]}'], extra=''), [
    rec('"id": "1"'),
    rec('"id": 0'),
    rec('"status": "old"'),
    rec('"code": "abc"'),
    rec('"code": "ABCD"'),
    rec('"email": "not an email"'),
    rec('"shape": {"w": 1, "h": 2}'),
    rec('"either": "abc"'),
    '{"event_time": "2026-07-09"}',
    '{"event_time": 1752091200}',
    rec('"id": 1, "status": "new", "code": "ABC", "email": "a@example.com", "shape": {"w": 1.5}, "either": "abcde"'),
])
case('reason-out-of-range', schema([
    '"small": {"type": "integer", "maximum": 2147483648}',
    '"big": {"type": "integer"}',
    '"amount": {"type": "number", "multipleOf": 0.01}',
    '"ratio": {"type": "number"}']), [
    rec('"small": 2147483648'),
    rec('"small": -2147483649'),
    rec('"big": 9223372036854775808'),
    rec('"big": -9223372036854775809'),
    rec('"amount": 1000000000000000000000000000000000000'),
    rec('"amount": 1e36'),
    rec('"ratio": 1e400'),
    rec('"small": 2147483647, "big": 9223372036854775807, "amount": 999999999999999999999999999999999999.99, "ratio": 1.7976931348623157e308'),
])
case('reason-invalid-value', schema([
    '"id": {"type": "string", "format": "uuid"}',
    '"blob": {"type": "string", "contentEncoding": "base64"}',
    '"contact": {"format": "email"}',
    '"at": {"type": "string", "format": "date-time"}']), [
    rec('"id": "not-a-uuid"'),
    rec('"id": "0f8fad5b-d9cb-469f-a165-70867728950"'),
    rec('"blob": "aGVsbG8!"'),
    rec('"blob": "aGVs bG8="'),
    rec('"blob": "-_-_"'),
    rec('"contact": 42'),
    rec('"at": "2016-12-31T23:59:60Z"'),
    rec('"id": "0F8FAD5B-D9CB-469F-A165-70867728950E", "blob": "aGVsbG8", "contact": "a@example.com", "at": "2016-12-31T23:59:59Z"'),
])

# --- one case per type conversion ---
case('type-timestamptz', schema([]), [
    '{"event_time": "2026-07-09T20:00:00Z"}',
    '{"event_time": "2026-07-09T20:00:00z"}',
    '{"event_time": "2026-07-09t20:00:00+00:00"}',
    '{"event_time": "2026-07-10T01:30:00+05:30"}',
    '{"event_time": "2026-07-09T12:00:00-08:00"}',
    '{"event_time": "2026-07-09T23:30:00-23:59"}',
    '{"event_time": "2024-02-29T23:00:00-02:00"}',
    '{"event_time": "2024-03-01T00:30:00+01:00"}',
    '{"event_time": "2026-07-09T20:00:00.5Z"}',
    '{"event_time": "2026-07-09T20:00:00.123Z"}',
    '{"event_time": "2026-07-09T20:00:00.123456Z"}',
    '{"event_time": "2026-07-09T20:00:00.1234567891Z"}',
    '{"event_time": "2026-07-09T20:00:00.000000999Z"}',
    '{"event_time": "1969-12-31T23:59:59.999999Z"}',
    '{"event_time": "1900-01-01T00:00:00Z"}',
    '{"event_time": "2026-07-09T20:00:00"}',
    '{"event_time": "2026-07-09 20:00:00Z"}',
])
# no partition for the date/time cases beyond event_time present
case('type-date', schema(['"day": {"type": "string", "format": "date"}']), [
    rec('"day": "2024-02-29"'),
    rec('"day": "2000-02-29"'),
    rec('"day": "1900-02-29"'),
    rec('"day": "2023-02-29"'),
    rec('"day": "0001-01-01"'),
    rec('"day": "9999-12-31"'),
    rec('"day": "1969-12-31"'),
    rec('"day": "2024-2-29"'),
])
case('type-time', schema(['"at": {"type": "string", "format": "time"}']), [
    rec('"at": "08:00:00Z"'),
    rec('"at": "10:00:00+02:00"'),
    rec('"at": "00:30:00+01:00"'),
    rec('"at": "23:30:00-01:00"'),
    rec('"at": "08:00:00.25Z"'),
    rec('"at": "08:00:00.1234567Z"'),
    rec('"at": "08:00:00"'),
    rec('"at": "24:00:00Z"'),
])
case('type-decimal', schema([
    '"price": {"type": "number", "multipleOf": 0.01}',
    '"whole": {"type": "number", "multipleOf": 1}',
    '"tiny": {"type": "number", "multipleOf": 1e-38}',
    '"quarter": {"type": "number", "multipleOf": 0.25}']), [
    rec('"price": 0.1'),
    rec('"price": 19.99'),
    rec('"price": -0.05'),
    rec('"price": 1.500'),
    rec('"price": 1e2'),
    rec('"price": 125E-2'),
    rec('"price": 0'),
    rec('"price": 999999999999999999999999999999999999.99'),
    rec('"price": -999999999999999999999999999999999999.99'),
    rec('"price": 1000000000000000000000000000000000000.00'),
    rec('"whole": 99999999999999999999999999999999999999'),
    rec('"whole": 100000000000000000000000000000000000000'),
    rec('"whole": 12.0'),
    rec('"tiny": 0.00000000000000000000000000000000000001'),
    rec('"tiny": 0.99999999999999999999999999999999999999'),
    rec('"quarter": 0.75'),
    rec('"quarter": 0.3'),
])
case('type-binary', schema([
    '"blob": {"type": "string", "contentEncoding": "base64"}',
    '"raw": {"type": "string", "format": "byte"}',
    '"legacy": {"type": "string", "encoding": "base64"}']), [
    rec('"blob": "aGk="'),
    rec('"blob": "aGk"'),
    rec('"blob": "aGVsbG8gd29ybGQ="'),
    rec('"blob": "aGVsbG8gd29ybGQ"'),
    rec('"blob": ""'),
    rec('"raw": "/w=="'),
    rec('"raw": "/w"'),
    rec('"legacy": "AAEC"'),
    rec('"blob": "aGk=="'),
    rec('"blob": "_w"'),
])
case('type-uuid', schema(['"id": {"type": "string", "format": "uuid"}']), [
    rec('"id": "f79c3e09-677c-4a5c-a8bd-3b0e6a7c0a9b"'),
    rec('"id": "F79C3E09-677C-4A5C-A8BD-3B0E6A7C0A9B"'),
    rec('"id": "00000000-0000-0000-0000-000000000000"'),
    rec('"id": "f79c3e09677c4a5ca8bd3b0e6a7c0a9b"'),
    rec('"id": "{f79c3e09-677c-4a5c-a8bd-3b0e6a7c0a9b}"'),
])
case('type-integers', schema([
    '"count": {"type": "integer", "maximum": 2147483647}',
    '"total": {"type": "integer"}']), [
    rec('"count": 2147483647, "total": 9223372036854775807'),
    rec('"count": -2147483648, "total": -9223372036854775808'),
    rec('"count": 1.0, "total": 2.50e1'),
    rec('"count": 1e2, "total": 100E-2'),
    rec('"count": 0, "total": -0'),
    rec('"count": 1.5'),
])
case('type-integers-draft-04', schema([
    '"count": {"type": "integer", "maximum": 2147483647}'], draft='draft-04'), [
    rec('"count": 1'),
    rec('"count": 1.0'),
    rec('"count": 1e2'),
])
case('type-double', schema(['"ratio": {"type": "number"}']), [
    rec('"ratio": 0.1'),
    rec('"ratio": 5'),
    rec('"ratio": -0.0'),
    rec('"ratio": 1e300'),
    rec('"ratio": 1.7976931348623157e308'),
    rec('"ratio": 5e-324'),
    rec('"ratio": 0.1000000000000000055511151231257827'),
    rec('"ratio": 123456789012345678901234567890'),
])
case('type-string-enum', schema([
    '"name": {"type": "string"}',
    '"level": {"enum": ["low", 2, true, null, {"a": [1]}]}',
    '"fixed": {"const": 3}']), [
    rec('"name": "caf\\u00e9 \\"q\\" \\ud83d\\ude00"'),
    rec('"level": "low", "fixed": 3'),
    rec('"level": 2'),
    rec('"level": true'),
    rec('"level": null'),
    rec('"level": {"a": [1]}'),
    rec('"level": {"a": [1.0]}'),
    rec('"name": 3'),
    rec('"fixed": 3.0'),
])
case('type-boolean', schema(['"flag": {"type": "boolean"}']), [
    rec('"flag": true'),
    rec('"flag": false'),
    rec('"flag": "true"'),
    rec('"flag": 1'),
])
case('type-nested', schema([
    '"user": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": ["integer", "null"], "maximum": 200}}, "required": ["name"]}',
    '"tags": {"type": "array", "items": {"type": "string"}}',
    '"scores": {"type": "array", "items": {"type": ["number", "null"]}}',
    '"attrs": {"type": "object", "additionalProperties": {"type": "integer", "maximum": 100}}',
    '"lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}, "required": ["sku"]}}']), [
    rec('"user": {"name": "a", "age": 30}, "tags": ["x", "y"], "scores": [1.5, null], "attrs": {"b": 2, "a": 1}, "lines": [{"sku": "s1", "qty": 2}, {"sku": "s2"}]'),
    rec('"user": {"name": "a", "age": null, "nickname": "z"}, "tags": [], "attrs": {}, "lines": [{"sku": "s1", "colour": "red"}], "extra": {"deep": [1, 2]}, "a/b": 1, "t~": 2'),
    rec('"tags": [1]'),
    rec('"attrs": {"a": 101}'),
    rec('"lines": [{"qty": 1}]'),
    rec('"user": []'),
])
# --- both record formats with zlib GSR payloads: delivered ---
ok = [rec('"id": %d, "note": "%s"' % (i, 'z'*i*20)).encode() for i in range(1,4)]
case('gsr-json-zlib', schema(['"id": {"type": "integer"}', '"note": {"type": "string"}']), args=['--record-format','gsr-json','--input','raw','--schema-version-id',str(VERSION)], files=[
    ('none.bin', gsr(ok[0])),
    ('zlib.bin', gsr(ok[1], compression=5)),
    ('zlib-bad-payload.bin', gsr(b'{"id": ', compression=5)),
    ('zlib-invalid-record.bin', gsr(rec('"id": "x"').encode(), compression=5)),
])
case('json-plain-raw', schema(['"id": {"type": "integer"}']), args=['--input','raw'], files=[
    ('one.json', ok[0]),
    ('pretty.json', b'{\n  "event_time": "2026-07-09T20:00:00Z",\n  "id": 7\n}\n'),
])
print('ok')

# --- $refs: validation reads the same documents as compile (a file beside the schema, a local
# definition, and a draft-04 `id` that changes the base) ---
d = os.path.join(R, 'refs-files')
os.makedirs(os.path.join(d, 'common'), exist_ok=True)
open(os.path.join(d, 'common', 'money.json'), 'w').write('''{
  "$schema": "http://json-schema.org/draft-04/schema#",
  "id": "money.json",
  "definitions": {
    "amount": {"type": "number", "multipleOf": 0.01, "minimum": 0},
    "currency": {"$ref": "#/definitions/code"},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$"}
  }
}
''')
case('refs-files', '''{
  "$schema": "http://json-schema.org/draft-04/schema#",
  "type": "object",
  "properties": {
    "event_time": {"type": "string", "format": "date-time"},
    "price": {"$ref": "common/money.json#/definitions/amount"},
    "currency": {"$ref": "common/money.json#/definitions/currency"},
    "lines": {"type": "array", "items": {"$ref": "#/definitions/line"}}
  },
  "required": ["event_time", "price"],
  "definitions": {
    "line": {"type": "object", "properties": {"sku": {"type": "string"}, "price": {"$ref": "common/money.json#/definitions/amount"}}, "required": ["sku"]}
  }
}''', [
    rec('"price": 12.5, "currency": "EUR", "lines": [{"sku": "a", "price": 1}]'),
    rec('"price": -1'),
    rec('"price": 1, "currency": "eur"'),
    rec('"price": 1, "lines": [{"sku": "a", "price": 0.001}]'),
    rec('"price": 1, "lines": [{"price": 2}]'),
])
print('refs ok')
