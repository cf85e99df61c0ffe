export { compileFilter, matches, FILTER_MAX_BYTES, FILTER_MAX_DEPTH } from './compile-filter';
export type { CompiledFilter, CompileFilterResult, FilterError, FilterSubject } from './filter-types';
export { filterSubjectOf, type StoredRequest } from './filter-subject';
