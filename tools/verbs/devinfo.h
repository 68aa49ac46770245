/* SPDX-License-Identifier: MIT */
/* ibv_devinfo's two outputs of the same device_info. */
#ifndef TOOLS_VERBS_DEVINFO_H
#define TOOLS_VERBS_DEVINFO_H

#include <stdbool.h>

#include "device_info.h"
#include "json.h"

/* Upstream's text, device and port basics; VERBOSE (-v) adds the rest. */
void devinfo_print_text(const struct device_info *info, bool verbose);

/* One element of the "devices" array: every field, always (the schema in
 * ibv_devinfo.schema.json). */
void devinfo_print_json(struct json_writer *w, const struct device_info *info);

#endif
