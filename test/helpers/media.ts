/** Small media files made in memory for upload tests. */

/** A WAV file of `seconds` of silence (8 kHz, 8-bit mono). */
export function wav(seconds: number, rate = 8000): Buffer {
  const samples = seconds * rate;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}

/** IPTC-IIM datasets of record 2 ([dataset number, text]) as the bytes of an IIM block. */
export function iptcBlock(datasets: [number, string][]): Buffer {
  return Buffer.concat(
    datasets.map(([dataset, text]) => {
      const value = Buffer.from(text, 'utf8');
      const head = Buffer.from([0x1c, 2, dataset, 0, 0]);
      head.writeUInt16BE(value.length, 3);
      return Buffer.concat([head, value]);
    }),
  );
}

/** `jpeg` with an APP13 Photoshop segment (resource 0x0404, IPTC) holding `datasets`, inserted after SOI. */
export function withIptc(jpeg: Buffer, datasets: [number, string][]): Buffer {
  const iim = iptcBlock(datasets);
  const padded = iim.length % 2 ? Buffer.concat([iim, Buffer.alloc(1)]) : iim;
  const resource = Buffer.alloc(12);
  resource.write('8BIM', 0, 'latin1');
  resource.writeUInt16BE(0x0404, 4);
  // Bytes 6-7: an empty Pascal name (padded to even); 8-11: the data's length.
  resource.writeUInt32BE(iim.length, 8);
  const body = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource, padded]);
  const head = Buffer.from([0xff, 0xed, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, body, jpeg.subarray(2)]);
}
