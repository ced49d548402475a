#ifndef HEADSUP_CPU_FEATURES_H
#define HEADSUP_CPU_FEATURES_H

/// The best kernel level this CPU and OS can run: 2 = x86-64-v4 (AVX-512
/// F/BW/CD/DQ/VL with the OS saving ZMM state), 1 = x86-64-v3 (AVX2, FMA,
/// BMI1/2, F16C, LZCNT, MOVBE with YMM state saved), 0 = baseline.
/// Always 0 on other architectures.
int headsup_cpu_kernel_level(void);

#endif
