"""TUN devices: opened in the root namespace, then moved into a test namespace.

The file descriptor stays bound to the device after `ip link set DEV netns NS`, so one
process in the root namespace can forward between devices living in two namespaces.
"""

import fcntl
import os
import struct

_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000  # raw IP packets, no 4-byte packet-information prefix


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", name.encode(), _IFF_TUN | _IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd
