/*
 * insncount: a QEMU TCG plugin for qemu-user (plugin API version 1, as in
 * Debian bookworm's qemu-user 7.2) that counts the AArch64 instructions
 * each guest thread executes, by class.
 *
 *   total=1     at exit, print each thread's counts and their sum
 *   mark=NUM    on every entry to syscall NUM, print the thread's counts
 *               since its previous entry to it ("mark VCPU ..."). With
 *               NUM = 113 (clock_gettime on aarch64: a real syscall under
 *               qemu 7.2, which gives aarch64 guests no vDSO) an interval is
 *               the work between two clock reads, such as one timed call of
 *               `headsup model bench`
 *   out=FILE    write to FILE instead of standard error
 *   profile=FILE  at exit, write each translation block's start address,
 *               instructions and executions (all threads) to FILE, for
 *               finding the hot blocks to disassemble
 *
 * Each line gives: all instructions, then vector FMLA/FMLS (by vector or by
 * element), other SIMD&FP data processing (scalar FP and FMADD included),
 * SIMD&FP loads/stores, integer loads/stores, branches/system, other
 * integer. A translation block is counted when it starts, so an interval
 * includes the syscall instruction that ends it.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum { ALL, VFMA, FPSIMD, VLDST, LDST, BRANCH, INT, CLASSES };
#define MAX_VCPUS 1024

static uint64_t counts[MAX_VCPUS][CLASSES];
static uint64_t since[MAX_VCPUS][CLASSES];
static int64_t mark = -1;
static FILE *out;
static FILE *profile;

/* One translated block: its class counts, and for profile= its executions. */
struct block {
    uint32_t n[CLASSES];
    uint64_t vaddr;
    uint64_t executions;
    struct block *next;
};
static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int classify(uint32_t insn)
{
    uint32_t op0 = (insn >> 25) & 0xf;
    if ((insn & 0xbf20fc00) == 0x0e20cc00 || (insn & 0xbf80b400) == 0x0f801000) {
        return VFMA; /* FMLA/FMLS (vector), FMLA/FMLS (by element), single/double */
    }
    if ((op0 & 0x5) == 0x4) {
        return (insn >> 26) & 1 ? VLDST : LDST;
    }
    if ((op0 & 0x7) == 0x7) {
        return FPSIMD;
    }
    if ((op0 & 0xe) == 0xa) {
        return BRANCH;
    }
    return INT;
}

static void emit(const char *tag, unsigned int vcpu, const uint64_t *n)
{
    pthread_mutex_lock(&lock);
    fprintf(out ? out : stderr, "%s %u", tag, vcpu);
    for (int c = 0; c < CLASSES; c++) {
        fprintf(out ? out : stderr, " %" PRIu64, n[c]);
    }
    fputc('\n', out ? out : stderr);
    pthread_mutex_unlock(&lock);
}

static void tb_exec(unsigned int vcpu, void *data)
{
    struct block *b = data;
    if (vcpu < MAX_VCPUS) {
        for (int c = 0; c < CLASSES; c++) {
            counts[vcpu][c] += b->n[c];
        }
    }
    if (profile) {
        __atomic_fetch_add(&b->executions, 1, __ATOMIC_RELAXED);
    }
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    struct block *b = calloc(1, sizeof *b); /* kept to the end: the translation may run until then */
    size_t insns = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < insns; i++) {
        uint32_t insn;
        memcpy(&insn, qemu_plugin_insn_data(qemu_plugin_tb_get_insn(tb, i)), sizeof insn);
        b->n[ALL]++;
        b->n[classify(insn)]++;
    }
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    pthread_mutex_lock(&lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&lock);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void syscall_entry(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2,
                          uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    uint64_t delta[CLASSES];
    if (num != mark || vcpu >= MAX_VCPUS) {
        return;
    }
    for (int c = 0; c < CLASSES; c++) {
        delta[c] = counts[vcpu][c] - since[vcpu][c];
        since[vcpu][c] = counts[vcpu][c];
    }
    emit("mark", vcpu, delta);
}

static void at_exit(qemu_plugin_id_t id, void *total)
{
    uint64_t sum[CLASSES] = {0};
    for (unsigned int vcpu = 0; vcpu < MAX_VCPUS; vcpu++) {
        if (counts[vcpu][ALL] && total) {
            emit("vcpu", vcpu, counts[vcpu]);
        }
        for (int c = 0; c < CLASSES; c++) {
            sum[c] += counts[vcpu][c];
        }
    }
    if (total) {
        emit("total", 0, sum);
    }
    for (struct block *b = blocks; profile && b; b = b->next) {
        if (b->executions) {
            fprintf(profile, "%" PRIx64 " %u %" PRIu64 "\n", b->vaddr, b->n[ALL], b->executions);
        }
    }
    if (profile) {
        fclose(profile);
    }
    if (out) {
        fclose(out);
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    uintptr_t total = 0;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "mark=", 5) == 0) {
            mark = strtoll(argv[i] + 5, NULL, 10);
        } else if (strcmp(argv[i], "total=1") == 0) {
            total = 1;
        } else if (strncmp(argv[i], "out=", 4) == 0) {
            if (!(out = fopen(argv[i] + 4, "w"))) {
                fprintf(stderr, "insncount: cannot write %s\n", argv[i] + 4);
                return -1;
            }
        } else if (strncmp(argv[i], "profile=", 8) == 0) {
            if (!(profile = fopen(argv[i] + 8, "w"))) {
                fprintf(stderr, "insncount: cannot write %s\n", argv[i] + 8);
                return -1;
            }
        } else {
            fprintf(stderr, "insncount: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    if (strcmp(info->target_name, "aarch64") != 0) {
        fprintf(stderr, "insncount: classes are for aarch64 guests, not %s\n", info->target_name);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    if (mark >= 0) {
        qemu_plugin_register_vcpu_syscall_cb(id, syscall_entry);
    }
    qemu_plugin_register_atexit_cb(id, at_exit, (void *)total);
    return 0;
}
