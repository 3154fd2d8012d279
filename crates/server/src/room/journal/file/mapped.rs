//! A segment written through a shared memory map (Linux): a journal line is a copy into the
//! file's page cache, not a `pwrite(2)`. That system call was the journal's whole cost per
//! action, about 5% of the server's CPU in the closed loop (docs/benchmarks.md, issue 18).
//!
//! **As durable as `pwrite(2)`.** A store into a `MAP_SHARED` map of a file is a store into the
//! file's page-cache pages, the very pages `pwrite(2)` copies into: once the copy is done a
//! `read(2)` of the file sees it, it outlives the process (SIGKILL), the kernel writes it to disk
//! like any dirty page, and the store's `syncfs(2)` forces it there. So "every action's line is
//! written before its events are sent" holds as before.
//!
//! **Why the unsafe code is sound.**
//! - Every copy goes to a range reserved by one atomic addition (`segment.rs`): no two writers
//!   ever touch the same bytes, and nothing reads through the map (readers use `read(2)`).
//! - A store to a page the file does not cover, or whose disk block cannot be allocated, would
//!   raise SIGBUS. So the file is grown with `fallocate(2)` a [`CHUNK`] at a time, which
//!   allocates the blocks before any byte of them is copied to; a write the allocation fails
//!   for (a full disk), and a write that would pass the end of the map, are left to `pwrite(2)`
//!   by the caller, which fails or succeeds as it always did. A file system without
//!   `fallocate(2)` is found when the segment is made, and the segment is not mapped at all.
//! - The file lives in the server's owner-only data directory and is only ever grown; something
//!   else truncating it under a running server is outside what the server defends against (it
//!   would stop the server with SIGBUS, as it would any program that maps files).
//!
//! **Memory.** Pages far behind the write front are dropped from the map (`MADV_DONTNEED`) as the
//! file grows, so the map never holds more than a few chunks of the process's resident memory.
//! For a shared file map this only unmaps them: what was written stays in the page cache,
//! dirty, and is written back as before.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{MmapOptions, MmapRaw, UncheckedAdvice};
use rustix::fs::FallocateFlags;

/// How much the file grows at a time; pages a chunk or more behind the growth are unmapped.
pub(super) const CHUNK: u64 = 64 << 10;

/// A segment's file mapped for writing.
#[derive(Debug)]
pub(super) struct Mapped {
    map: MmapRaw,
    /// The file's allocated length: every byte below it may be copied to. Only grows.
    allocated: AtomicU64,
    /// Held while the file grows; holds how far the map's pages were dropped.
    growth: Mutex<u64>,
}

impl Mapped {
    /// Maps `capacity` bytes (rounded up to a whole chunk) of `file`, allocating the first
    /// chunk (an error if the file system cannot allocate).
    pub(super) fn new(file: &File, capacity: u64) -> io::Result<Mapped> {
        let capacity = capacity.max(1).next_multiple_of(CHUNK);
        let length = usize::try_from(capacity).map_err(|_| io::ErrorKind::InvalidInput)?;
        rustix::fs::fallocate(file, FallocateFlags::empty(), 0, CHUNK)?;
        Ok(Mapped {
            map: MmapOptions::new().len(length).map_raw(file)?,
            allocated: AtomicU64::new(CHUNK),
            growth: Mutex::new(0),
        })
    }

    /// Copies `bytes` to `offset` of the file, which the caller reserved for them alone, and
    /// answers whether it did: not when the range passes the end of the map or the file could
    /// not be grown under it (the caller writes it with `pwrite(2)` then).
    pub(super) fn write(&self, file: &File, offset: u64, bytes: &[u8]) -> bool {
        let Some(end) = u64::try_from(bytes.len())
            .ok()
            .and_then(|length| offset.checked_add(length))
        else {
            return false;
        };
        if end > self.map.len() as u64 {
            return false;
        }
        if end > self.allocated.load(Ordering::Acquire)
            && let Err(error) = self.grow(file, end)
        {
            tracing::warn!(%error, "cannot grow a journal segment; writing with pwrite(2)");
            return false;
        }
        let Ok(start) = usize::try_from(offset) else {
            return false;
        };
        // SAFETY: `start + bytes.len()` is within the map (checked above), the file's blocks
        // under it are allocated (`grow`), so the store cannot fault with SIGBUS; the range was
        // reserved for this write alone, so no other thread reads or writes these bytes, and
        // `bytes` (ours, borrowed) cannot overlap the map.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.map.as_mut_ptr().add(start),
                bytes.len(),
            );
        }
        true
    }

    /// Allocates the file up to at least `end` (a whole chunk past it, within the map), and
    /// unmaps the pages a chunk or more behind what was allocated before.
    fn grow(&self, file: &File, end: u64) -> io::Result<()> {
        let mut dropped = super::lock(&self.growth);
        let allocated = self.allocated.load(Ordering::Acquire);
        if end <= allocated {
            return Ok(());
        }
        let target = end.next_multiple_of(CHUNK).min(self.map.len() as u64);
        rustix::fs::fallocate(file, FallocateFlags::empty(), allocated, target - allocated)?;
        self.allocated.store(target, Ordering::Release);
        let behind = allocated.saturating_sub(CHUNK);
        if behind > *dropped {
            let (start, length) = (*dropped as usize, (behind - *dropped) as usize);
            // SAFETY: the range is within the map, and nothing holds a reference into it (the
            // map is only ever written through raw pointers). For a shared file map
            // MADV_DONTNEED only unmaps the pages: their bytes stay in the page cache, and a
            // writer still copying there (a range reserved long ago) faults them back in.
            let advised = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, start, length)
            };
            if advised.is_ok() {
                *dropped = behind;
            }
        }
        Ok(())
    }
}
