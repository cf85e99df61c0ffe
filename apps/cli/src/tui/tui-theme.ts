import { createContext, useContext } from 'react';
import { statusStyle } from '../output/colors';

/** Text colours, or none at all (NO_COLOR, --no-color): every meaning is also in the text itself. */
export interface Theme {
  color: boolean;
  /** Props for ink's <Text>: a colour only when colours are on. */
  tone(name: 'red' | 'green' | 'yellow' | 'blue' | 'cyan' | 'gray'): { color?: string };
  status(status: string): { color?: string };
}

export function themeFor(color: boolean): Theme {
  return {
    color,
    tone: (name) => (color ? { color: name } : {}),
    status: (status) => (color ? { color: statusStyle(status) } : {}),
  };
}

export const ThemeContext = createContext<Theme>(themeFor(false));
export const useTheme = () => useContext(ThemeContext);
