"""Decodes the PNG files Swift wrote, with zxing-cpp, and checks how the PNG itself is built.

Usage: zxing_peer.py MANIFEST.json  (a list of {"file", "size", "scale", "quietZone"})
Prints one JSON list, in manifest order, of
  {"file", "ok", "error", "bytes_hex", "version", "level", "mask", "width", "height", "mode",
   "modules", "quiet_zone_light", "chunks"}
where "modules" is the symbol read back from the pixel at each module's centre ('1' dark) and "chunks" lists the
chunk types. Pillow checks each chunk's CRC-32 and Python's zlib checks the Adler-32 of the IDAT stream.
Exit status 2 when the peer itself cannot run (a module missing).
"""
import json
import struct
import sys
import zlib

try:
    import zxingcpp
    from PIL import Image
except ImportError as error:  # the venv is not set up
    print(f"missing Python module: {error}", file=sys.stderr)
    sys.exit(2)


def chunks(raw):
    """Chunk types in order, after checking the signature, every CRC and the zlib stream of the IDATs."""
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("bad PNG signature")
    types, idat, pos = [], b"", 8
    while pos < len(raw):
        (length,) = struct.unpack(">I", raw[pos:pos + 4])
        ctype = raw[pos + 4:pos + 8]
        data = raw[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", raw[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + data) != crc:
            raise ValueError(f"CRC mismatch in {ctype!r}")
        types.append(ctype.decode("ascii"))
        if ctype == b"IDAT":
            idat += data
        pos += 12 + length
    zlib.decompress(idat)  # raises on a bad stream or Adler-32
    return types


def check(entry):
    result = {"file": entry["file"], "ok": False, "error": None}
    try:
        with open(entry["file"], "rb") as f:
            raw = f.read()
        result["chunks"] = chunks(raw)
        image = Image.open(entry["file"])
        image.load()
        result.update(width=image.width, height=image.height, mode=image.mode)
        grey = image.convert("L")
        size, scale, quiet = entry["size"], entry["scale"], entry["quietZone"]
        pixels = grey.load()
        result["modules"] = "".join(
            "1" if pixels[(quiet + x) * scale + scale // 2, (quiet + y) * scale + scale // 2] < 128 else "0"
            for y in range(size) for x in range(size))
        side = (size + 2 * quiet) * scale
        inner, outer = quiet * scale, (quiet + size) * scale
        bands = [(0, 0, side, inner), (0, outer, side, side), (0, 0, inner, side), (outer, 0, side, side)]
        result["quiet_zone_light"] = (image.width == side and image.height == side and all(
            grey.crop(band).getextrema()[0] >= 128 for band in bands if band[2] > band[0] and band[3] > band[1]))
        found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
        if len(found) != 1:
            result["error"] = f"zxing-cpp found {len(found)} QR codes"
            return result
        barcode = found[0]
        extra = barcode.extra
        result.update(
            ok=barcode.valid,
            error=str(barcode.error) if barcode.error else None,
            bytes_hex=bytes(barcode.bytes).hex(),
            version=int(extra.get("Version", 0)),
            level=extra.get("ECLevel"),
            mask=extra.get("DataMask"),
        )
    except Exception as error:  # reported per file, so one bad image does not hide the others
        result["error"] = f"{type(error).__name__}: {error}"
    return result


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    json.dump([check(entry) for entry in manifest], sys.stdout)


if __name__ == "__main__":
    main()
