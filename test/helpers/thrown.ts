/** The catalogue code a call throws, 'OK' when it does not throw. */
export function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code ?? 'THREW';
  }
  return 'OK';
}
