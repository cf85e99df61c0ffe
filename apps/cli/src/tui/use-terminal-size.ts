import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** The terminal's size, following resizes; fixed sizes (tests) win. 80×24 when the stream does not say. */
export function useTerminalSize(fixed: { columns?: number; rows?: number }) {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return { columns: fixed.columns ?? size.columns, rows: fixed.rows ?? size.rows };
}
