#ifndef PATCH_RUNTIME_H
#define PATCH_RUNTIME_H
#endif
