#ifndef HEADSUP_CPU_FEATURES_H
#define HEADSUP_CPU_FEATURES_H

/// The best kernel level this CPU and OS can run: 3 = level 2 on an AMD CPU
/// with Zen 4's AVX-512 extensions (IFMA, VBMI, VBMI2, VNNI, BITALG,
/// VPOPCNTDQ, BF16, GFNI, VAES, VPCLMULQDQ: what code compiled for znver4
/// may use), 2 = x86-64-v4 (AVX-512 F/BW/CD/DQ/VL with the OS saving ZMM
/// state), 1 = x86-64-v3 (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE with YMM
/// state saved), 0 = baseline.
/// Always 0 on other architectures.
int headsup_cpu_kernel_level(void);

#endif
