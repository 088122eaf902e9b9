"""Parses `compile --format ddl` output with sqlglot, for crates/cli/tests/ddl_sqlglot.rs.

Reads a JSON list of {"dialect": "athena" | "spark" | "trino", "sql": "..."} on standard input
and prints a JSON list of what sqlglot read from each statement, in the same order:

    {"table": [namespace, table],
     "columns": [{"name", "type", "not_null", "comment"}],
     "partition": [{"transform", "column": [name, ...]}],
     "location": str | null,
     "properties": {key: value}}

or {"error": "..."} when sqlglot cannot parse the statement or it holds something this script
does not know. A type is "int", "long", "float", "double", "boolean", "date", "time",
"timestamp", "timestamptz", "uuid", "string", "binary", "decimal(P, S)", or
{"struct": [columns]}, {"list": type}, {"map": [key type, value type]}: Iceberg's names, so
the Rust side compares them with the compiled schema. Every identifier and string literal
comes back unescaped, as sqlglot read it, which is the point: the quoting is what is tested.
"""

import json
import re
import sys

import sqlglot
from sqlglot import exp

DIALECTS = {"athena": "athena", "spark": "spark", "trino": "trino"}

PLAIN = {
    exp.DataType.Type.INT: "int",
    exp.DataType.Type.BIGINT: "long",
    exp.DataType.Type.FLOAT: "float",
    exp.DataType.Type.DOUBLE: "double",
    exp.DataType.Type.BOOLEAN: "boolean",
    exp.DataType.Type.DATE: "date",
    exp.DataType.Type.TIMESTAMP: "timestamp",
    exp.DataType.Type.TIMESTAMPLTZ: "timestamptz",
    exp.DataType.Type.UUID: "uuid",
    exp.DataType.Type.TEXT: "string",
    exp.DataType.Type.VARCHAR: "string",
    exp.DataType.Type.BINARY: "binary",
    exp.DataType.Type.VARBINARY: "binary",
}


class Unknown(Exception):
    pass


def params(data_type):
    return [int(p.this.this) for p in data_type.expressions if isinstance(p, exp.DataTypeParam)]


def type_of(data_type):
    kind = data_type.this
    T = exp.DataType.Type
    if kind == T.DECIMAL:
        precision, scale = params(data_type)
        return f"decimal({precision}, {scale})"
    if kind in (T.TIMESTAMPTZ, T.TIME):
        # Trino writes the precision; Iceberg's are microseconds.
        if params(data_type) != [6]:
            raise Unknown(f"{data_type.sql()} is not microseconds")
        return "timestamptz" if kind == T.TIMESTAMPTZ else "time"
    if kind in PLAIN:
        if data_type.expressions:
            raise Unknown(f"{data_type.sql()} has parameters")
        return PLAIN[kind]
    if kind == T.STRUCT:
        return {"struct": [column(c) for c in data_type.expressions]}
    if kind == T.ARRAY:
        (element,) = data_type.expressions
        return {"list": type_of(element)}
    if kind == T.MAP:
        key, value = data_type.expressions
        return {"map": [type_of(key), type_of(value)]}
    raise Unknown(f"the type {data_type.sql()} ({kind})")


def column(definition):
    if not isinstance(definition, exp.ColumnDef):
        raise Unknown(f"{definition.sql()} is not a column definition")
    not_null = False
    comment = None
    for constraint in definition.constraints:
        kind = constraint.kind
        if isinstance(kind, exp.NotNullColumnConstraint) and not kind.args.get("allow_null"):
            not_null = True
        elif isinstance(kind, exp.CommentColumnConstraint):
            comment = kind.this.this
        else:
            raise Unknown(f"the constraint {constraint.sql()}")
    return {
        "name": definition.this.this,
        "type": type_of(definition.args["kind"]),
        "not_null": not_null,
        "comment": comment,
    }


def column_path(column_expression):
    if not isinstance(column_expression, (exp.Column, exp.Dot)):
        raise Unknown(f"the partition source {column_expression.sql()}")
    return [part.this for part in column_expression.parts]


def transform(call, dialect):
    """A partition transform: Athena's hour(col), Spark's hours(col), Trino's parsed string."""
    if isinstance(call, exp.Hour):
        return {"transform": "hour", "column": column_path(call.this)}
    if isinstance(call, exp.Anonymous) and call.name.lower() in ("hour", "hours"):
        (argument,) = call.expressions
        return {"transform": call.name.lower(), "column": column_path(argument)}
    raise Unknown(f"the partition transform {call.sql(dialect=dialect)}")


def literal(value):
    if isinstance(value, exp.Literal):
        return value.this if value.is_string else str(value.this)
    if isinstance(value, exp.Var):
        return value.this
    raise Unknown(f"the property value {value.sql()}")


def statement(dialect, sql):
    parsed = sqlglot.parse_one(sql, read=dialect, error_level=sqlglot.ErrorLevel.RAISE)
    if not isinstance(parsed, exp.Create) or parsed.kind != "TABLE":
        raise Unknown("not a CREATE TABLE")
    schema = parsed.this
    table = schema.this
    out = {
        "table": [table.args["db"].this, table.this.this],
        "columns": [column(c) for c in schema.expressions],
        "partition": [],
        "location": None,
        "properties": {},
    }
    for prop in parsed.args["properties"].expressions:
        if isinstance(prop, exp.PartitionedByProperty):
            out["partition"] += [transform(e, dialect) for e in prop.this.expressions]
        elif isinstance(prop, exp.LocationProperty):
            out["location"] = prop.this.this
        elif isinstance(prop, exp.FileFormatProperty):
            out["properties"]["USING" if dialect == "spark" else "format"] = literal(prop.this)
        elif isinstance(prop, exp.Property):
            key = literal(prop.this)
            if key == "partitioning":
                # Trino reads each entry as an expression of its own.
                for entry in prop.args["value"].expressions:
                    text = literal(entry)
                    call = sqlglot.parse_one(text, read=dialect, error_level=sqlglot.ErrorLevel.RAISE)
                    out["partition"].append(transform(call, dialect))
            else:
                out["properties"][key] = literal(prop.args["value"])
        else:
            raise Unknown(f"the table property {prop.sql(dialect=dialect)}")
    return out


def main():
    results = []
    for item in json.load(sys.stdin):
        try:
            results.append(statement(DIALECTS[item["dialect"]], item["sql"]))
        except (sqlglot.errors.SqlglotError, Unknown, ValueError, KeyError, AttributeError) as error:
            results.append({"error": f"{type(error).__name__}: {error}"})
    json.dump(results, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
