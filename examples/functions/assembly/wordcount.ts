// reduce: counts the words (runs of non-whitespace bytes) of every value; the result is a u64le.
import { allocate, emitU64 } from "./ringbase";

export function ringbase_abi_version(): i32 { return 1; }
export function alloc(size: i32): usize { return allocate(size); }

const scratch = heap.alloc(8);

function isSpace(c: u8): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d;
}

export function map(keyPtr: usize, keyLen: i32, valPtr: usize, valLen: i32, metaPtr: usize): i32 {
  let words: u64 = 0;
  let inWord = false;
  for (let i = 0; i < valLen; i++) {
    const space = isSpace(load<u8>(valPtr + <usize>i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  emitU64(scratch, words);
  return 0;
}

export function combine(aPtr: usize, aLen: i32, bPtr: usize, bLen: i32): i32 {
  if (aLen != 8 || bLen != 8) return 7; // not two partials of this function
  emitU64(scratch, load<u64>(aPtr) + load<u64>(bPtr));
  return 0;
}
