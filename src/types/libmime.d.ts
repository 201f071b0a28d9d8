// The one libmime function we use (RFC 2047 encoded-word decoding); the package ships no types.
declare module 'libmime' {
  const libmime: { decodeWords(value: string): string };
  export default libmime;
}
