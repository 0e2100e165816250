export * from './basic';
export * from './errors';
export { SafeHTML } from './SafeHTML';
export { InfiniteList, DEFAULT_MAX } from './InfiniteList';
export { PullToRefresh } from './PullToRefresh';
