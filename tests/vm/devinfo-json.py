#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks our ibv_devinfo --json and ibv_devices --json, on the host
(host-json-check.sh, after the devinfo guest):

    devinfo-json.py SCHEMA_DIR DEVINFO_JSON DEVINFO_V_TEXT DEVICES_JSON DEVICES_TEXT

Each document must validate against its schema (tools/verbs/*.schema.json,
JSON Schema draft 2020-12) and say what the text output of the same run
says: the same devices in the same order, and for every "name: value"
line of ibv_devinfo -v at device and port level and every GID, the same
value in the JSON.  Prints what it compared; exits 1 on any mismatch.
"""
import ipaddress
import json
import re
import sys

import jsonschema

errors = []


def error(msg):
    errors.append(msg)
    print('FAIL ' + msg)


def validate(schema_path, doc, what):
    with open(schema_path, encoding='utf-8') as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    problems = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for p in problems[:10]:
        error(f'{what}: {"/".join(map(str, p.path))}: {p.message}')
    if not problems:
        print(f'ok {what} is valid against {schema_path.rsplit("/", 1)[-1]}')


def parse_devinfo_text(text):
    """[{'fields': {name: value}, 'ports': [{'fields': ..., 'gids': [...]}]}]
    from ibv_devinfo -v: device fields are indented one tab, port fields
    three; the nested capability sections (two tabs) are left out."""
    devices = []
    port = None
    for line in text.splitlines():
        if m := re.fullmatch(r'hca_id:\t(\S+)', line):
            devices.append({'fields': {'hca_id': m.group(1)}, 'ports': []})
            port = None
        elif m := re.fullmatch(r'\t\tport:\t(\d+)', line):
            port = {'fields': {'port': m.group(1)}, 'gids': []}
            devices[-1]['ports'].append(port)
        elif m := re.fullmatch(r'\t\t\tGID\[ *(\d+)\]:\t\t([^,]+)(?:, (.*))?', line):
            port['gids'].append((int(m.group(1)), m.group(2), m.group(3)))
        elif m := re.fullmatch(r'\t\t\t(\w+):\t+(.+)', line):
            port['fields'][m.group(1)] = m.group(2)
        elif m := re.fullmatch(r'\t(\w+):\t+(.+)', line):
            devices[-1]['fields'][m.group(1)] = m.group(2)
    return devices


def same(value, text):
    """Whether a JSON value says what the text says."""
    if isinstance(value, dict) and 'names' in value:
        return int(text, 16) == value['value']
    if isinstance(value, dict):
        return text in (f'{value["name"]} ({value["value"]})', value['name'])
    if isinstance(value, str):
        return text == value
    return int(text, 0) == value


def compare_devinfo(doc, text):
    parsed = parse_devinfo_text(text)
    names = [d['hca_id'] for d in doc['devices']]
    text_names = [d['fields']['hca_id'] for d in parsed]
    if names != text_names:
        error(f'ibv_devinfo --json lists {names}, -v {text_names}')
        return
    compared = gids = 0
    for dev, tdev in zip(doc['devices'], parsed):
        pairs = [(dev, tdev['fields'], dev['hca_id'])]
        if len(dev['ports']) != len(tdev['ports']):
            error(f'{dev["hca_id"]}: {len(dev["ports"])} ports in JSON, {len(tdev["ports"])} in text')
            continue
        for port, tport in zip(dev['ports'], tdev['ports']):
            pairs.append((port, tport['fields'], f'{dev["hca_id"]} port {port["port"]}'))
            if tport['gids'] or dev['transport']['name'] == 'InfiniBand':
                want = [(g['index'], ipaddress.IPv6Address(g['gid']), g['type']) for g in port['gids']]
                have = [(i, ipaddress.IPv6Address(g), t or 'IB') for i, g, t in tport['gids']]
                if want != have:
                    error(f'{dev["hca_id"]} port {port["port"]}: GIDs {want} in JSON, {have} in text')
                gids += len(have)
        for obj, fields, where in pairs:
            for name, text_value in fields.items():
                if name not in obj:
                    error(f'{where}: "{name}" of the text is not in the JSON')
                elif not same(obj[name], text_value):
                    error(f'{where}: {name} is {obj[name]!r} in JSON, "{text_value}" in text')
                else:
                    compared += 1
    print(f'ok ibv_devinfo --json: {len(names)} devices {names}, '
          f'{compared} fields and {gids} GIDs compared with -v')
    if compared < 50 * len(names):
        error(f'only {compared} fields compared: the text was not parsed')


def compare_devices(doc, text):
    rows = [line.split() for line in text.splitlines()[2:]]
    want = [[d['device'], d['node_guid']] for d in doc['devices']]
    if want != rows:
        error(f'ibv_devices --json says {want}, the text {rows}')
    else:
        print(f'ok ibv_devices --json: the same {len(rows)} devices and GUIDs as the text')


def load(path, what):
    with open(path, encoding='utf-8') as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as e:
            error(f'{what} is not JSON: {e}')
            return None


def main():
    schema_dir, devinfo_json, devinfo_text, devices_json, devices_text = sys.argv[1:6]
    doc = load(devinfo_json, 'ibv_devinfo --json')
    if doc is not None:
        validate(f'{schema_dir}/ibv_devinfo.schema.json', doc, 'ibv_devinfo --json')
        with open(devinfo_text, encoding='utf-8') as f:
            compare_devinfo(doc, f.read())
    doc = load(devices_json, 'ibv_devices --json')
    if doc is not None:
        validate(f'{schema_dir}/ibv_devices.schema.json', doc, 'ibv_devices --json')
        with open(devices_text, encoding='utf-8') as f:
            compare_devices(doc, f.read())
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
