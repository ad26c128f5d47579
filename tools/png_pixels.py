#!/usr/bin/env python3
"""Reads a PNG (8-bit RGB or RGBA, not interlaced, as rsvg-convert and
chromium write them) with the standard library only, for tests that assert
on rendered pictures.

  png_pixels.py FILE X0 Y0 X1 Y1 [MIN]

prints the count of pixels in the rectangle [X0, X1) x [Y0, Y1) that are
neither white nor transparent, and exits 1 when it is below MIN (default 1).
As a module: read(path) -> (width, height, rows), rows[y][x] = (r, g, b, a).
"""
import struct
import sys
import zlib


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: depth {depth}, colour {colour}: not supported")
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append([tuple(line[x:x + channels]) + ((255,) if channels == 3 else ())
                     for x in range(0, stride, channels)])
        prev = line
    return width, height, rows


def inked(rows, x0, y0, x1, y1):
    n = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            r, g, b, a = rows[y][x]
            if a > 0 and (r, g, b) != (255, 255, 255):
                n += 1
    return n


if __name__ == "__main__":
    path, x0, y0, x1, y1 = sys.argv[1], *map(int, sys.argv[2:6])
    least = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    _, _, rows = read(path)
    n = inked(rows, x0, y0, x1, y1)
    print(n)
    sys.exit(0 if n >= least else 1)
