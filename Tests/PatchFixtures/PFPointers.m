#import "PFSupport.h"
#import "PFPointersFixture.h"

typedef struct PFRecord { const char *name; int idx; } PFRecord;

@interface PFMemory : NSObject
- (void *)makeRecord;
- (BOOL)checkRecord:(void *)record;
- (int)indexOfRecord:(void *)record;
- (void)freeRecord:(void *)record;
- (void *)echoPointer:(void *)pointer;
- (char *)staticChars;
- (BOOL)checkChars:(char *)chars;
- (char *)echoChars:(char *)chars;
- (NSString *)recordName:(char *)chars;
@end

@implementation PFMemory
- (void *)makeRecord
{
    PFRecord *record = malloc(sizeof(PFRecord));
    record->name = "JSPatch";
    record->idx = 42;
    return record;
}
- (BOOL)checkRecord:(void *)record
{
    PFRecord *r = record;
    return r != NULL && r->idx == 42 && strcmp(r->name, "JSPatch") == 0;
}
- (int)indexOfRecord:(void *)record { return record ? ((PFRecord *)record)->idx : -1; }
- (void)freeRecord:(void *)record { free(record); }
- (void *)echoPointer:(void *)pointer { return NULL; }
- (char *)staticChars { return "JSPatch"; }
- (BOOL)checkChars:(char *)chars { return chars != NULL && strcmp(chars, "JSPatch") == 0; }
- (char *)echoChars:(char *)chars { return NULL; }
- (NSString *)recordName:(char *)chars { return [NSString stringWithFormat:@"name:%s", chars ? chars : "NULL"]; }
@end

int pf_memory_echo_pointer(void)
{
    PF_POOL_BEGIN
        PFMemory *memory = [[PFMemory new] autorelease];
        PFRecord *record = [memory makeRecord];
        void *back = [memory echoPointer:record];
        int result = back == NULL ? -1 : (back == record && [memory checkRecord:back] ? 1 : 0);
        free(record);
        return result;
    PF_POOL_END
}

char *pf_memory_echo_chars(void)
{
    PF_POOL_BEGIN
        char buffer[] = "JSPatch";
        char *back = [[[PFMemory new] autorelease] echoChars:buffer];
        return back ? strdup(back) : NULL;
    PF_POOL_END
}

char *pf_memory_record_name(const char *text)
{
    PF_POOL_BEGIN
        char *copy = strdup(text);
        NSString *name = [[[PFMemory new] autorelease] recordName:copy];
        free(copy);
        return PFCopyString(PFDescribe(name));
    PF_POOL_END
}
