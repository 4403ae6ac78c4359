#include "checks.h"

/* Order matters only where a check reads an earlier result:
 * host.cpu.virt looks at host.kvm. */
const struct host_check host_checks[] = {
    {"host.kvm", check_kvm},
    {"host.cpu.virt", check_cpu_virt},
    {"host.clock", check_clock},
    {"host.resources", check_resources},
    {"host.nfs.client", check_nfs_client},
    {"host.nfs.kernel", check_nfs_kernel},
    {"host.iscsi", check_iscsi},
    {"host.multipathd", check_multipathd},
    {"host.longhorn.path", check_longhorn_path},
    {"host.containerd.device-ownership", check_containerd_device_ownership},
    {"host.image.share-manager", check_image_share_manager},
    {"host.nfs.probe", check_nfs_probe},
};
const size_t host_checks_len = ELEMENTSOF(host_checks);
