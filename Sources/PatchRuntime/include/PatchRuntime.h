#ifndef PATCH_RUNTIME_H
#define PATCH_RUNTIME_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
int PESmoke(void);
#endif
