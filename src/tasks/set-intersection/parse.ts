export { findIntegerLists, jsonLists, lastIntegerList } from '../integer-lists';
