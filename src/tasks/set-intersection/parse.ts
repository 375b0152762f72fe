export { findIntegerLists, jsonLists, lastIntegerList, readList, readSplitLists } from '../integer-lists';
