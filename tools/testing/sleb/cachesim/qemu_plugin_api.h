/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin API (API version 1, as
 * in QEMU 7.2) that sleb_cache.so uses, declared here from QEMU's plugin
 * documentation (docs/devel/tcg-plugins.rst, "API"), because no Debian 12
 * package ships qemu-plugin.h.  "make check" compares the functions below
 * with the symbols the installed qemu-system-x86_64 exports
 * (check-plugin-api.sh).
 *
 * Only what the plugin needs: opaque handles, the callback types, and the
 * functions that register callbacks and inspect instructions and accesses.
 * The struct qemu_info_t a plugin receives at install is treated as opaque:
 * the plugin asks qemu_plugin_n_max_vcpus() instead.
 */
#ifndef SLEB_QEMU_PLUGIN_API_H
#define SLEB_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The API version this plugin is written against. */
#define SLEB_QEMU_PLUGIN_VERSION 1

/*
 * QEMU's scalar types, spelled out: qemu_plugin_id_t is a 64-bit plugin
 * handle, unsigned int a 32-bit word describing one access.
 */

struct qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

typedef void (*qemu_plugin_udata_cb_t)(unsigned long long id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(unsigned long long id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, unsigned int info,
					  unsigned long long vaddr, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(unsigned long long id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *userdata);
void qemu_plugin_register_atexit_cb(unsigned long long id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
unsigned long long qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

unsigned int qemu_plugin_mem_size_shift(unsigned int info);
bool qemu_plugin_mem_is_store(unsigned int info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(unsigned int info,
						  unsigned long long vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
unsigned long long qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

int qemu_plugin_n_max_vcpus(void);
void qemu_plugin_outs(const char *string);

#endif /* SLEB_QEMU_PLUGIN_API_H */
