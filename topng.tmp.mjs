import sharp from "/work/main/node_modules/sharp/lib/index.js";
for (const f of process.argv.slice(2)) {
  const out = `/tmp/png/${f.split("/").pop().replace(/\.jpg$/, ".png")}`;
  await sharp(f).png().toFile(out);
  console.log(out);
}
