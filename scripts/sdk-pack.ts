import { ensureSdkTarball } from "../lib/server/sdk-package";

/**
 * `npm run sdk:pack` (also the end of `npm run build`): packs sdk/ into .sdk-package/, the tarball
 * the server offers at {APP_URL}/sdk/latest.tgz, unless the one there is current.
 */
const tarball = await ensureSdkTarball(process.cwd(), (line) => console.log(line));
console.log(`.sdk-package/${tarball.name} is current`);
