#include "cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long read_xcr0(void) {
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static int bit(unsigned int value, int index) { return (value >> index) & 1; }

/* "AuthenticAMD" in EBX, EDX, ECX of leaf 0. */
static int is_amd(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return 0;
    return ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;
}

int headsup_cpu_kernel_level(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int fma = bit(ecx, 12), movbe = bit(ecx, 22), osxsave = bit(ecx, 27), avx = bit(ecx, 28), f16c = bit(ecx, 29);
    if (!osxsave || !avx) return 0;
    unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) return 0; /* the OS saves XMM and YMM */
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int bmi1 = bit(ebx, 3), avx2 = bit(ebx, 5), bmi2 = bit(ebx, 8);
    int avx512f = bit(ebx, 16), avx512dq = bit(ebx, 17), avx512cd = bit(ebx, 28), avx512bw = bit(ebx, 30), avx512vl = bit(ebx, 31);
    unsigned int ext_a, ext_b, ext_c, ext_d;
    int lzcnt = __get_cpuid(0x80000001, &ext_a, &ext_b, &ext_c, &ext_d) ? bit(ext_c, 5) : 0;
    if (!(avx2 && fma && bmi1 && bmi2 && f16c && lzcnt && movbe)) return 0;
    /* opmask, upper ZMM0-15 and ZMM16-31 state saved by the OS */
    if (!(avx512f && avx512dq && avx512cd && avx512bw && avx512vl && (xcr0 & 0xe6) == 0xe6)) return 1;
    int zen4_extensions = bit(ebx, 21) /* IFMA */ && bit(ecx, 1) /* VBMI */ && bit(ecx, 6) /* VBMI2 */
        && bit(ecx, 8) /* GFNI */ && bit(ecx, 9) /* VAES */ && bit(ecx, 10) /* VPCLMULQDQ */ && bit(ecx, 11) /* VNNI */
        && bit(ecx, 12) /* BITALG */ && bit(ecx, 14) /* VPOPCNTDQ */;
    unsigned int sub_a = 0, sub_b, sub_c, sub_d;
    int bf16 = __get_cpuid_count(7, 1, &sub_a, &sub_b, &sub_c, &sub_d) && bit(sub_a, 5);
    if (zen4_extensions && bf16 && is_amd()) return 3;
    return 2;
}

#else

int headsup_cpu_kernel_level(void) { return 0; }

#endif
