/* The info object a hook block receives (Aspects' id<AspectInfo>) and the invocation it hands out.
   Both read the call's frame in place, so a hook can read and change arguments and the result;
   after the call returns they refuse instead of touching a dead frame. */
#include "PEHooksInternal.h"
#include <string.h>

__thread PEAspectInfo *PEHookSpareInfo;

static void requireFrame(PEFrame *frame) {
    if (!frame) [NSException raise:NSInternalInconsistencyException
                            format:@"the hooked call has returned; its invocation can no longer be used"];
}

static id boxValue(const PEType *type, const void *p) {
    switch (PETypeGetKind(type)) {
        case PETypeKindObject: case PETypeKindBlock: case PETypeKindClass: {
            id o = *(id const *)p; return o ?: [NSNull null];
        }
        case PETypeKindChar: return [NSNumber numberWithChar:*(const char *)p];
        case PETypeKindUChar: return [NSNumber numberWithUnsignedChar:*(const unsigned char *)p];
        case PETypeKindShort: return [NSNumber numberWithShort:*(const short *)p];
        case PETypeKindUShort: return [NSNumber numberWithUnsignedShort:*(const unsigned short *)p];
        case PETypeKindInt: return [NSNumber numberWithInt:*(const int *)p];
        case PETypeKindUInt: return [NSNumber numberWithUnsignedInt:*(const unsigned *)p];
        case PETypeKindLong: return [NSNumber numberWithLong:*(const long *)p];
        case PETypeKindULong: return [NSNumber numberWithUnsignedLong:*(const unsigned long *)p];
        case PETypeKindLongLong: return [NSNumber numberWithLongLong:*(const long long *)p];
        case PETypeKindULongLong: return [NSNumber numberWithUnsignedLongLong:*(const unsigned long long *)p];
        case PETypeKindFloat: return [NSNumber numberWithFloat:*(const float *)p];
        case PETypeKindDouble: return [NSNumber numberWithDouble:*(const double *)p];
        case PETypeKindBool: return [NSNumber numberWithBool:*(const unsigned char *)p];
        case PETypeKindSelector: {
            SEL s = *(SEL const *)p; return s ? (id)[NSString stringWithUTF8String:sel_getName(s)] : (id)[NSNull null];
        }
        case PETypeKindVoid: return nil;
        default: return [NSValue valueWithBytes:p objCType:PETypeGetEncoding(type)];
    }
}

@implementation PEHookInvocation
- (SEL)selector { requireFrame(_frame); return *(SEL *)_frame->arguments[1]; }
- (id)target { requireFrame(_frame); return *(id *)_frame->arguments[0]; }
- (void)setTarget:(id)target { requireFrame(_frame); *(id *)_frame->arguments[0] = target; }
- (NSMethodSignature *)methodSignature {
    return [NSMethodSignature signatureWithObjCTypes:PESignatureGetRuntimeEncoding(_slot->signature)];
}
- (void)getArgument:(void *)buffer atIndex:(NSInteger)index {
    requireFrame(_frame);
    const PESignature *sig = _frame->signature;
    if (index < 0 || (unsigned)index >= PESignatureGetArgumentCount(sig))
        [NSException raise:NSRangeException format:@"argument index %ld out of range", (long)index];
    memcpy(buffer, _frame->arguments[index], PETypeGetSize(PESignatureGetArgument(sig, (unsigned)index)));
}
- (void)setArgument:(void *)buffer atIndex:(NSInteger)index {
    requireFrame(_frame);
    const PESignature *sig = _frame->signature;
    if (index < 0 || (unsigned)index >= PESignatureGetArgumentCount(sig))
        [NSException raise:NSRangeException format:@"argument index %ld out of range", (long)index];
    memcpy(_frame->arguments[index], buffer, PETypeGetSize(PESignatureGetArgument(sig, (unsigned)index)));
}
- (void)getReturnValue:(void *)buffer {
    requireFrame(_frame);
    const PEType *rt = PESignatureGetReturnType(_frame->signature);
    if (_frame->returnValue) memcpy(buffer, _frame->returnValue, PETypeGetSize(rt));
}
- (void)setReturnValue:(void *)buffer {
    requireFrame(_frame);
    const PEType *rt = PESignatureGetReturnType(_frame->signature);
    if (_frame->returnValue) memcpy(_frame->returnValue, buffer, PETypeGetSize(rt));
}
- (void)invoke { requireFrame(_frame); PESlotInvokeCore(_slot, _frame); }
- (void)invokeWithTarget:(id)target { [self setTarget:target]; [self invoke]; }
- (void)retainArguments {}
- (BOOL)argumentsRetained { return NO; }
@end

@implementation PEAspectInfo
- (void)dealloc {
    [_invocation release];
    [_arguments release];
    [super dealloc];
}
- (id)retain { _escaped = YES; return [super retain]; }
- (id)instance { return _instance; }
- (NSInvocation *)originalInvocation {
    if (!_invocation) {
        _invocation = [PEHookInvocation new];
        _invocation->_slot = _slot;
        _invocation->_frame = _frame;
    }
    return (NSInvocation *)_invocation;
}
- (NSArray *)arguments {
    if (!_arguments) {
        requireFrame(_frame);
        const PESignature *sig = _frame->signature;
        NSMutableArray *args = [NSMutableArray array];
        for (unsigned i = 2; i < PESignatureGetArgumentCount(sig); i++)
            [args addObject:boxValue(PESignatureGetArgument(sig, i), _frame->arguments[i]) ?: [NSNull null]];
        _arguments = [args copy];
    }
    return _arguments;
}
- (id)invokeOriginal {
    requireFrame(_frame);
    PESlotInvokeCore(_slot, _frame);
    const PEType *rt = PESignatureGetReturnType(_frame->signature);
    return _frame->returnValue ? boxValue(rt, _frame->returnValue) : nil;
}
@end

/* The uncommon end of a call: the hooks asked for the invocation or the arguments, or kept the
   info. The invocation may have been kept too: it is cut off from the frame as well. */
void PEHookInfoRecycle(PEAspectInfo *info) {
    if (info->_invocation) info->_invocation->_frame = NULL;
    if (!info->_escaped && !PEHookSpareInfo) {
        [info->_invocation release];
        info->_invocation = nil;
        [info->_arguments release];
        info->_arguments = nil;
        info->_instance = nil;
        PEHookSpareInfo = info;
    } else {
        [info release];
    }
}
