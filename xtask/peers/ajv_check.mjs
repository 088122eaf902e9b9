// The peer of `schema2iceberg records` in `cargo xtask bench --peers`: what a team would write
// with ajv 8 to check a day's NDJSON sample. The schema is compiled once (ajv generates a JS
// function), formats come from ajv-formats, and multipleOfPrecision is 6, so that
// `multipleOf: 0.01` accepts 605916.69 (605916.69 / 0.01 is 60591668.99999999 in doubles; without
// the option, or with 9 digits, ajv rejects it).
// Reads the file in chunks and validates line by line; prints `valid N invalid M`.
//
// usage: node ajv_check.mjs SCHEMA FILE
import { createReadStream, readFileSync } from "node:fs";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const [schemaPath, file] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
delete schema.$schema;
const ajv = new Ajv({ strict: false, allErrors: false, multipleOfPrecision: 6 });
addFormats(ajv);
const validate = ajv.compile(schema);

let valid = 0;
let invalid = 0;
let rest = "";
const check = (line) => {
  if (line.length === 0) return;
  let record;
  try {
    record = JSON.parse(line);
  } catch {
    invalid += 1;
    return;
  }
  if (validate(record)) valid += 1;
  else invalid += 1;
};
const stream = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
stream.on("data", (chunk) => {
  const text = rest + chunk;
  let start = 0;
  let end;
  while ((end = text.indexOf("\n", start)) !== -1) {
    check(text.slice(start, end));
    start = end + 1;
  }
  rest = text.slice(start);
});
stream.on("end", () => {
  check(rest);
  console.log(`valid ${valid} invalid ${invalid}`);
});
