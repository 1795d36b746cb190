#ifndef PATCH_FIXTURES_H
#define PATCH_FIXTURES_H
#endif
