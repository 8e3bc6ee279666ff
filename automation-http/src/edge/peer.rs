//! Who owns the other end of a loopback TCP connection: the kernel's socket table gives the
//! uid of the peer's socket. Asked by its four-tuple through `sock_diag` (netlink, one exact
//! lookup), or read from `/proc/net/tcp` and `/proc/net/tcp6` where netlink is unavailable.
//!
//! The peer's socket is the one whose local address is the connection's peer address and
//! whose remote address is ours.

use std::net::{IpAddr, SocketAddr};

use super::rules::Peer;

/// The owner of the connection from `peer` to our `local`, when `peer` is on loopback.
pub fn of(peer: SocketAddr, local: SocketAddr) -> Peer {
    if !is_loopback(peer.ip()) {
        return Peer::Remote;
    }
    // A dual-stack listener sees an IPv4 client as ::ffff:a.b.c.d; its socket is IPv4.
    let (peer, local) = (canonical(peer), canonical(local));
    #[cfg(target_os = "linux")]
    {
        if let Some(uid) = diag::uid(peer, local) {
            return Peer::Uid(uid);
        }
    }
    match proc_uid(peer, local) {
        Some(uid) => Peer::Uid(uid),
        None => Peer::Unknown,
    }
}

fn canonical(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), addr.port()),
            None => addr,
        },
        IpAddr::V4(_) => addr,
    }
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// The uid from `/proc/net/tcp{,6}`: the line whose local address is `peer` and remote `local`.
fn proc_uid(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    let file = if peer.is_ipv4() {
        "/proc/net/tcp"
    } else {
        "/proc/net/tcp6"
    };
    let table = std::fs::read_to_string(file).ok()?;
    table.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let (l, r, uid) = (cols.get(1)?, cols.get(2)?, cols.get(7)?);
        (parse_proc_addr(l)? == peer && parse_proc_addr(r)? == local)
            .then(|| uid.parse().ok())
            .flatten()
    })
}

/// `0100007F:1F90` (IPv4) or 32 hex digits `:PORT` (IPv6): each 32-bit word as the kernel
/// printed it, in host byte order.
fn parse_proc_addr(field: &str) -> Option<SocketAddr> {
    let (ip, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Option<Vec<[u8; 4]>> = (0..ip.len() / 8)
        .map(|i| {
            u32::from_str_radix(ip.get(i * 8..i * 8 + 8)?, 16)
                .ok()
                .map(u32::to_ne_bytes)
        })
        .collect();
    let bytes: Vec<u8> = words?.concat();
    let ip = match bytes.len() {
        4 => IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?),
        16 => IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?),
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(target_os = "linux")]
mod diag {
    //! One `SOCK_DIAG_BY_FAMILY` request for the socket with the exact four-tuple, answered
    //! with its `inet_diag_msg` (whose `idiag_uid` is the owner) or an error.

    use std::net::{IpAddr, SocketAddr};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    const NLM_F_REQUEST: u16 = 1;
    const NLMSG_ERROR: u16 = 2;
    const TCP_ESTABLISHED_AND_MORE: u32 = !0;
    const HEADER: usize = 16;
    const REQUEST: usize = 56;

    /// The uid owning the socket `peer` → `local`, or `None` (netlink refused, not found).
    pub fn uid(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
        let family = if peer.is_ipv4() {
            libc::AF_INET
        } else {
            libc::AF_INET6
        };
        // SAFETY: a plain socket(2) call; the descriptor is owned below.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                libc::NETLINK_SOCK_DIAG,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` was just returned by socket(2) and nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let timeout = libc::timeval {
            tv_sec: 1,
            tv_usec: 0,
        };
        // SAFETY: setsockopt with a valid fd and a timeval of the size passed.
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&raw const timeout).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            );
        }
        let request = message(family as u8, peer, local);
        // SAFETY: the buffer is valid for its length; netlink's kernel address is the zeroed
        // sockaddr_nl with only the family set.
        let sent = unsafe {
            let mut addr: libc::sockaddr_nl = std::mem::zeroed();
            addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
            libc::sendto(
                fd.as_raw_fd(),
                request.as_ptr().cast(),
                request.len(),
                0,
                (&raw const addr).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        };
        if sent != request.len() as isize {
            return None;
        }
        let mut reply = [0u8; 8192];
        // SAFETY: recv(2) into a buffer valid for its length.
        let got = unsafe { libc::recv(fd.as_raw_fd(), reply.as_mut_ptr().cast(), reply.len(), 0) };
        let got = usize::try_from(got).ok()?;
        parse(reply.get(..got)?, peer)
    }

    /// `nlmsghdr` + `inet_diag_req_v2` for the socket whose own end is `peer`.
    fn message(family: u8, peer: SocketAddr, local: SocketAddr) -> Vec<u8> {
        let mut m = Vec::with_capacity(HEADER + REQUEST);
        m.extend_from_slice(&((HEADER + REQUEST) as u32).to_ne_bytes());
        m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        m.extend_from_slice(&NLM_F_REQUEST.to_ne_bytes());
        m.extend_from_slice(&1u32.to_ne_bytes()); // sequence
        m.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel fills it
        m.push(family);
        m.push(libc::IPPROTO_TCP as u8);
        m.push(0); // no extensions
        m.push(0); // pad
        m.extend_from_slice(&TCP_ESTABLISHED_AND_MORE.to_ne_bytes());
        // inet_diag_sockid: ports and addresses in network order.
        m.extend_from_slice(&peer.port().to_be_bytes());
        m.extend_from_slice(&local.port().to_be_bytes());
        m.extend_from_slice(&address(peer.ip()));
        m.extend_from_slice(&address(local.ip()));
        m.extend_from_slice(&0u32.to_ne_bytes()); // any interface
        m.extend_from_slice(&u32::MAX.to_ne_bytes()); // INET_DIAG_NOCOOKIE
        m.extend_from_slice(&u32::MAX.to_ne_bytes());
        m
    }

    fn address(ip: IpAddr) -> [u8; 16] {
        let mut out = [0u8; 16];
        match ip {
            IpAddr::V4(v4) => out[..4].copy_from_slice(&v4.octets()),
            IpAddr::V6(v6) => out = v6.octets(),
        }
        out
    }

    /// The uid in a reply: `nlmsghdr`, then `inet_diag_msg` (family, state, timer, retrans,
    /// the 48-byte socket id, expires, rqueue, wqueue, uid, inode). The socket id must be the
    /// one asked for.
    fn parse(reply: &[u8], peer: SocketAddr) -> Option<u32> {
        let kind = u16::from_ne_bytes(reply.get(4..6)?.try_into().ok()?);
        if kind == NLMSG_ERROR || kind != SOCK_DIAG_BY_FAMILY {
            return None;
        }
        let msg = reply.get(HEADER..)?;
        let sport = u16::from_be_bytes(msg.get(4..6)?.try_into().ok()?);
        if sport != peer.port() {
            return None;
        }
        let uid_at = 4 + 48 + 12;
        Some(u32::from_ne_bytes(
            msg.get(uid_at..uid_at + 4)?.try_into().ok()?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_connection_is_owned_by_this_user() {
        // SAFETY: geteuid(2) cannot fail.
        let me = unsafe { libc::geteuid() };
        for bind in ["127.0.0.1:0", "[::1]:0"] {
            let Ok(listener) = std::net::TcpListener::bind(bind) else {
                continue; // no IPv6 loopback here
            };
            let local = listener.local_addr().unwrap();
            let client = std::net::TcpStream::connect(local).unwrap();
            let (_conn, peer) = listener.accept().unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
            assert_eq!(of(peer, local), Peer::Uid(me), "{bind}");
            assert_eq!(proc_uid(peer, local), Some(me), "{bind}: /proc");
            // A four-tuple nobody holds has no owner.
            let nobody = SocketAddr::new(peer.ip(), 1);
            assert_eq!(of(nobody, local), Peer::Unknown);
        }
        assert_eq!(
            of(
                "192.0.2.1:5000".parse().unwrap(),
                "192.0.2.2:4723".parse().unwrap()
            ),
            Peer::Remote
        );
    }

    #[test]
    fn proc_addresses_read_as_the_kernel_prints_them() {
        assert_eq!(
            parse_proc_addr("0100007F:1F90"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse_proc_addr("00000000000000000000000001000000:0050"),
            Some("[::1]:80".parse().unwrap())
        );
        assert_eq!(parse_proc_addr("zz:1"), None);
    }
}
