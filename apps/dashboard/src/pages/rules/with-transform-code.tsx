import { Loader, Modal } from '@mantine/core';
import { useQuery, type QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ProblemAlert } from '../../components/problem-alert';
import type { StoredTransformPacing } from './transform-pacing-draft';

interface Props<T extends StoredTransformPacing> {
  /** The rule or destination to edit, as a list gave it; undefined for a new one. */
  target: T | undefined;
  queryKey: QueryKey;
  /** GET of the one target, whose answer carries the transform's code. */
  load: () => Promise<T>;
  title: string;
  onClose: () => void;
  children: (target: T | undefined) => ReactNode;
}

/**
 * A list's item says `has_transform` but not the code (up to 256 KB each): an edit form of one with a transform
 * gets the full target first, so its editor starts from the saved code (and a save never mistakes it for none).
 */
export function WithTransformCode<T extends StoredTransformPacing>(props: Props<T>) {
  const { target, queryKey, load, title, onClose, children } = props;
  const needed = target !== undefined && target.has_transform && target.transform === undefined;
  const full = useQuery({ queryKey, queryFn: load, enabled: needed });
  if (!needed) return children(target);
  if (full.data) return children(full.data);
  return (
    <Modal opened onClose={onClose} size="lg" title={title}>
      {full.error ? <ProblemAlert error={full.error} /> : <Loader size="sm" role="status" aria-label="Loading" />}
    </Modal>
  );
}
