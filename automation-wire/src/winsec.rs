//! Windows: the process token's user SID, for an owner-only DACL (`D:P(A;;GA;;;<SID>)`).
//!
//! NOTE: written for Windows but neither compiled nor run in this repository's CI (Linux).
//! If the SID cannot be resolved, binding fails: it never falls back to a default (null)
//! security descriptor, which would let Everyone and the anonymous account read the pipe.

use std::io;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};
use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
use windows_sys::Win32::Security::{GetTokenInformation, TOKEN_QUERY, TOKEN_USER, TokenUser};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

/// The current process user's SID as a string (`S-1-5-21-…`).
pub(crate) fn current_user_sid() -> io::Result<String> {
    // SAFETY: standard token query sequence; every out-pointer is valid for the call and the
    // token handle and the LocalAlloc'd string are released on every path.
    unsafe {
        let mut token: HANDLE = std::ptr::null_mut();
        if OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut len = 0u32;
        GetTokenInformation(token, TokenUser, std::ptr::null_mut(), 0, &mut len);
        // u64 storage keeps TOKEN_USER aligned.
        let mut buf = vec![0u64; (len as usize).div_ceil(8).max(1)];
        let ok = GetTokenInformation(token, TokenUser, buf.as_mut_ptr().cast(), len, &mut len);
        CloseHandle(token);
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        let user = &*(buf.as_ptr() as *const TOKEN_USER);
        let mut wide: *mut u16 = std::ptr::null_mut();
        if ConvertSidToStringSidW(user.User.Sid, &mut wide) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut n = 0usize;
        while *wide.add(n) != 0 {
            n += 1;
        }
        let sid = String::from_utf16_lossy(std::slice::from_raw_parts(wide, n));
        LocalFree(wide.cast());
        Ok(sid)
    }
}

/// An owner-only security descriptor for a named pipe.
pub(crate) fn owner_only_descriptor()
-> io::Result<interprocess::os::windows::security_descriptor::SecurityDescriptor> {
    let sid = current_user_sid()?;
    let sddl = format!("D:P(A;;GA;;;{sid})");
    let wide =
        widestring::U16CString::from_str(&sddl).map_err(|e| io::Error::other(e.to_string()))?;
    interprocess::os::windows::security_descriptor::SecurityDescriptor::deserialize(&wide)
}
