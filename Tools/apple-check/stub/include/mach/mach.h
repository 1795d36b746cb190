/* <mach/mach.h> for `make apple-check` only (the tool's kit has no Mach headers): what the
   package's Objective-C uses to read its resident size, over the kit's own mach/ headers, the
   rest copied in shape from the SDK's mach/task_info.h, mach/mach_init.h and mach/task.h. */
#ifndef PE_APPLE_CHECK_MACH_H
#define PE_APPLE_CHECK_MACH_H
#include <stdint.h>

#include <mach/kern_return.h>          /* the kit's own: kern_return_t, KERN_SUCCESS */
#include <mach/message.h>              /* mach_msg_type_number_t, natural_t, integer_t */
#include <mach/port.h>                 /* mach_port_t */
#include <mach/time_value.h>           /* time_value_t */

typedef mach_port_t task_name_t;                            /* mach/mach_types.h */
typedef natural_t task_flavor_t;                            /* mach/task_info.h */
typedef integer_t *task_info_t;
typedef uint64_t mach_vm_size_t;                            /* mach/arm/vm_types.h */
typedef int policy_t;                                       /* mach/policy.h */

#define MACH_TASK_BASIC_INFO 20                             /* mach/task_info.h */
struct mach_task_basic_info {
    mach_vm_size_t virtual_size;
    mach_vm_size_t resident_size;
    mach_vm_size_t resident_size_max;
    time_value_t user_time;
    time_value_t system_time;
    policy_t policy;
    integer_t suspend_count;
};
typedef struct mach_task_basic_info mach_task_basic_info_data_t;
#define MACH_TASK_BASIC_INFO_COUNT ((mach_msg_type_number_t)(sizeof(mach_task_basic_info_data_t) / sizeof(natural_t)))

extern mach_port_t mach_task_self_;                         /* mach/mach_init.h */
#define mach_task_self() mach_task_self_
extern kern_return_t task_info(task_name_t target_task, task_flavor_t flavor, task_info_t task_info_out,
                               mach_msg_type_number_t *task_info_outCnt);   /* mach/task.h (MIG) */
#endif
