/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_check.h - what every fuzz target shares: libFuzzer's entry point
 * and CHECK(), an invariant that aborts with the file, line and
 * expression (libFuzzer keeps the input that made it fail).
 */
#ifndef XDPLANE_FUZZ_CHECK_H
#define XDPLANE_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x)) {                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #x);                                 \
			abort();                                               \
		}                                                              \
	} while (0)

#endif
