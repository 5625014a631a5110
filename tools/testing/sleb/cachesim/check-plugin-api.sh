#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-plugin-api.sh PLUGIN QEMU: every qemu_plugin_* function PLUGIN
# imports must be exported by the QEMU binary, which resolves them when it
# loads the plugin; qemu_plugin_api.h declares them without QEMU's header.
# Prints the missing ones and exits 1, or prints the count and exits 0.
set -eu
plugin=$1
qemu=$2
want=$(nm -D --undefined-only "$plugin" | awk '$2 ~ /^qemu_plugin_/ { print $2 }' | sort -u)
have=$(nm -D --defined-only "$qemu" | awk '$3 ~ /^qemu_plugin_/ { print $3 }' | sort -u)
[ -n "$want" ] || {
	echo "no qemu_plugin_ imports in $plugin"
	exit 1
}
missing=$(echo "$want" | grep -vxF "$have" || true)
if [ -n "$missing" ]; then
	echo "$missing" | tr '\n' ' '
	exit 1
fi
echo "$(echo "$want" | wc -l) functions"
