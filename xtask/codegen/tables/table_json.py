"""The JSON layout of the tables the oracle scripts here print for `cargo xtask codegen`."""
import json
import sys

def write_json(data):
    """Writes `data` as JSON with one list item a line, so a changed entry is a one-line diff."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            items = ',\n'.join('  ' + json.dumps(item) for item in value)
            lines.append(f'{json.dumps(key)}: [\n{items}\n ]')
        else:
            lines.append(f'{json.dumps(key)}: {json.dumps(value)}')
    sys.stdout.write('{\n ' + ',\n '.join(lines) + '\n}\n')

