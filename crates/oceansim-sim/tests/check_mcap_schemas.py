"""Validates every JSON message of an exported run.mcap against the JSON
Schema its channel embeds (Foxglove's, unchanged, and this project's own),
with Python's `mcap` reader and `jsonschema` (draft 2020-12).

Usage: python check_mcap_schemas.py RUN_MCAP [FOXGLOVE_SCHEMA_DIR]
With FOXGLOVE_SCHEMA_DIR, every embedded `foxglove.*` schema must also be
byte for byte that directory's file of the same title.
Prints `mcap ok: N messages on M channels valid` or fails.
"""

import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator
from mcap.reader import make_reader


def main():
    path = Path(sys.argv[1])
    reference = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    validators = {}
    count, channels = 0, set()
    with open(path, "rb") as fh:
        reader = make_reader(fh)
        for schema, channel, message in reader.iter_messages():
            if channel.message_encoding != "json" or schema.encoding != "jsonschema":
                sys.exit(f"FAIL: {channel.topic}: {channel.message_encoding}/{schema.encoding}")
            if schema.id not in validators:
                doc = json.loads(schema.data)
                if doc.get("title") != schema.name:
                    sys.exit(f"FAIL: schema {schema.name} is titled {doc.get('title')}")
                if reference and schema.name.startswith("foxglove."):
                    want = (reference / (schema.name.split(".", 1)[1] + ".json")).read_bytes()
                    if want != schema.data:
                        sys.exit(f"FAIL: {schema.name} is not Foxglove's schema unchanged")
                Draft202012Validator.check_schema(doc)
                validators[schema.id] = Draft202012Validator(doc)
            msg = json.loads(message.data)
            errors = list(validators[schema.id].iter_errors(msg))
            if errors:
                e = errors[0]
                sys.exit(f"FAIL: {channel.topic} ({schema.name}): {e.message} at {list(e.path)}")
            count += 1
            channels.add(channel.topic)
    print(f"mcap ok: {count} messages on {len(channels)} channels valid")


if __name__ == "__main__":
    main()
