#import "CCCorpus.h"
#import "ConversionCorpus.h"

static NSInteger CCTwice(NSInteger n) { return 2 * n; }

@implementation CCCorpus
@synthesize count = _count;
@synthesize name = _name;

+ (NSString *)kind { return @"corpus"; }

- (void)dealloc
{
    [_name release];
    [_log release];
    [super dealloc];
}

- (NSString *)describe
{
    return [NSString stringWithFormat:@"corpus %@ %ld", self.name, (long)self.count];
}

- (NSString *)messageSends
{
    NSString *s = [[NSString alloc] initWithString:@"abc"];
    NSString *upper = [[s uppercaseString] stringByAppendingString:[NSString stringWithFormat:@"-%@", @"x"]];
    [s release];
    return [[upper lowercaseString] stringByAppendingString:[[self class] kind]];
}

- (NSString *)properties
{
    self.count = 3;
    self.count += 2;
    self.count++;
    self.name = @"box";
    return [NSString stringWithFormat:@"%@:%ld:%lu", self.name, (long)self.count, (unsigned long)self.name.length];
}

- (NSString *)literals
{
    NSArray *a = @[@"x", @1, @2.5, @(YES)];
    NSDictionary *d = @{@"k": @"v", @"n": @(3 + 4)};
    char c = 'A';
    BOOL yes = YES, no = NO;
    id none = nil;
    NSString *s = @"text";
    return [NSString stringWithFormat:@"%lu %@ %@ %c %d %d %@ %lu", (unsigned long)[a count], [d objectForKey:@"k"],
                                      [d objectForKey:@"n"], c, yes, no, none == nil ? @"nil" : @"set", (unsigned long)[s length]];
}

- (NSString *)blocks:(NSArray *)items
{
    __block NSInteger sum = 0;
    NSUInteger index = 0;
    for (NSNumber *item in items) {
        sum += [self apply:^NSInteger(NSInteger v, NSString *tag) { return v * (NSInteger)[tag length]; }
                        to:[item integerValue] * (NSInteger)(++index)];
    }
    NSString *(^join)(NSString *, NSInteger) = ^NSString *(NSString *prefix, NSInteger n) {
        return [NSString stringWithFormat:@"%@=%ld", prefix, (long)n];
    };
    return join(@"sum", sum);
}

- (NSInteger)apply:(NSInteger (^)(NSInteger, NSString *))function to:(NSInteger)value
{
    return function(value, @"ab") + 1;
}

- (NSString *)structs
{
    NSRect r = NSMakeRect(1, 2, 30, 40);
    NSRect moved = r;
    moved.origin.x = 10;
    NSSize size = r.size;
    NSRange range = NSMakeRange(2, 3);
    NSString *part = [@"hello world" substringWithRange:NSMakeRange(6, 5)];
    return [NSString stringWithFormat:@"%.1f %.1f %.1f %.1f %lu %@", r.origin.x, moved.origin.x, size.width + size.height,
                                      r.size.height, (unsigned long)(range.location + range.length), part];
}

- (NSString *)controlFlow:(NSInteger)n
{
    if (n < 0) return @"negative";
    else if (n == 0) return @"zero";
    NSMutableString *out = [NSMutableString string];
    for (NSInteger i = 0; i < n; i++) {
        if (i == 1) continue;
        if (i > 5) break;
        [out appendFormat:@"%ld,", (long)i];
    }
    NSInteger j = n;
    while (j > 0) { j -= 2; }
    do { j++; } while (j < 3);
    for (NSString *key in @{@"a": @1}) [out appendString:key];
    for (NSNumber *v in @[@7, @8]) [out appendFormat:@"%@", v];
    switch (n) {
        case 1: [out appendString:@"one"];
        case 2: [out appendString:@"two"]; break;
        case CCShapeCircle: [out appendString:@"five"]; break;
        default: [out appendString:@"many"];
    }
    return [NSString stringWithFormat:@"%@ j=%ld %@", out, (long)j, n % 2 ? @"odd" : @"even"];
}

- (NSString *)operators:(NSInteger)a by:(NSInteger)b
{
    NSInteger q = a / b, r = a % b;
    NSInteger bits = ((a & 0xF) | (b << 2)) ^ 1;
    NSInteger shifted = a >> 1;
    double ratio = (double)a / b;
    int truncated = (int)ratio;
    NSInteger x = 5;
    x *= 3; x -= 1; x /= 4; x <<= 1;
    BOOL both = a > 0 && b > 0, either = a < 0 || b < 0;
    NSInteger m = MIN(a, b) * 10 + MAX(a, b);
    return [NSString stringWithFormat:@"%ld %ld %ld %ld %.3f %d %ld %d %d %ld %ld %d", (long)q, (long)r, (long)bits, (long)shifted,
                                      ratio, truncated, (long)x, both, either, (long)m, (long)~a, !both];
}

- (NSString *)formats:(NSInteger)n
{
    return [NSString stringWithFormat:@"[%5ld][%-5ld][%05ld][%x][%X][%.2f][%8.3f][%s][%-6s|][%c][%%][%+ld]", (long)n, (long)n,
                                      (long)n, (unsigned)n, (unsigned)n, n / 3.0, n * 1.5, [@"cstr" UTF8String],
                                      [@"ab" UTF8String], (char)('a' + n % 26), (long)n];
}

- (NSInteger)casts:(double)value
{
    return (NSInteger)value + (int)(value * 2) + [(NSNumber *)[NSNumber numberWithDouble:value] integerValue];
}

- (NSInteger)instanceVariables:(NSInteger)add
{
    _total += add;
    if (_log == nil) _log = [NSMutableArray new];
    [_log addObject:@"entry"];
    return _total * 100 + (NSInteger)[_log count];
}

- (NSString *)enumsAndTernary:(CCShape)shape
{
    CCShape next = shape == CCShapeSquare ? CCShapeCircle : CCShapeTriangle;
    return [NSString stringWithFormat:@"%ld->%ld %@", (long)shape, (long)next, shape > CCShapeSquare ? @"round" : @"square"];
}

- (BOOL)isLong:(NSString *)text
{
    return [text length] > 3 && ![text hasPrefix:@"x"];
}

- (double)average:(NSArray *)numbers
{
    if ([numbers count] == 0) return 0;
    double sum = 0;
    for (NSNumber *n in numbers) sum += [n doubleValue];
    return sum / [numbers count];
}

/* What a patch can't do: each is reported at its place. */
- (NSString *)unconvertible:(NSInteger)n
{
    int values[3] = { 1, 2, 3 };
    int *p = values;
    p++;
    @try {
        n = CCTwice(n) + *p + (NSInteger)sizeof(NSRect);
    } @catch (NSException *e) {
        goto done;
    }
done:
    return [NSString stringWithFormat:@"%ld", (long)n];
}
@end

@implementation CCCorpusChild
+ (NSString *)kind { return [[super kind] uppercaseString]; }

- (NSString *)describe
{
    return [@"child:" stringByAppendingString:[super describe]];
}
@end

int cc_corpus_class_count(void)
{
    return [CCCorpus class] != Nil && [CCCorpusChild class] != Nil ? 2 : 0;
}
