/* GNUstep's headers include <objc/blocks_runtime.h> when blocks are enabled; GCC's
   libobjc ships no such header. Use the toolchain's Blocks runtime instead (Linux only). */
#include <Block.h>
