// The version the console shows (the public pages' footer): package.json's, so a release changes it in one place.
import { version } from '../../package.json';

export const APP_VERSION: string = version;
