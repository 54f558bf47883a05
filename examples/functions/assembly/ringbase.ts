// The host side of Ringbase's function ABI, version 1 (docs/functions.md), for AssemblyScript.

/** Copies one output record (map), the combined value (combine) or the new value (update) out of memory. */
@external("ringbase", "emit")
export declare function emit(keyPtr: usize, keyLen: i32, valPtr: usize, valLen: i32): i32;

/** One line to the node's log (truncated to 256 bytes, at most 10 lines a second per job). */
@external("ringbase", "log")
export declare function log(ptr: usize, len: i32): void;

/** update's results. */
export const UNCHANGED: i32 = 0;
export const REPLACE: i32 = 1;
export const DELETE: i32 = 2;

let buffer: usize = 0;
let capacity: i32 = 0;

/**
 * The region the node writes a call's inputs into. One region, reused by every call and grown when a
 * record is larger: what alloc returned is valid only until the entry point returns.
 */
export function allocate(size: i32): usize {
  if (size > capacity) {
    buffer = heap.alloc(<usize>size);
    capacity = size;
  }
  return buffer;
}

/** Writes a u64 little-endian into a scratch word and emits it as a value with an empty key. */
export function emitU64(scratch: usize, value: u64): void {
  store<u64>(scratch, value);
  emit(0, 0, scratch, 8);
}
