/* Whether the Swift engine has finished starting: an atomic flag read on paths that must not
   start it. In C because Swift's Atomic needs macOS 15 and the package supports macOS 13. */
#ifndef PE_ENGINE_STARTED_H
#define PE_ENGINE_STARTED_H
#include <stdbool.h>

/* Set once, after start-up completed (release); read with acquire. */
void PEEngineMarkStarted(void);
bool PEEngineIsStarted(void);
#endif
