/// The product catalog, modelled on the EPM demo catalog (notebooks, flat screens, printers,
/// mice, software, …). Descriptions contain `"`, `°`, `µ`, `–` and `≤` so that escaping and
/// UTF-8 handling are exercised.
extension Vocabulary {
    static let categories: [ProductCategory] = [
        ProductCategory(
            name: "Notebooks", stems: ["Notebook Basic", "Notebook Professional", "Ultrabook Slim", "ITelO Book"],
            variants: ["13", "14", "15", "17", "18", "19", "Pro", "Air"],
            fragments: ["2,80 GHz quad core", "15\" LCD", "17\" Multitouch LCD", "8 GB DDR4 RAM", "16 GB DDR5 RAM",
                        "500 GB SSD", "1 TB NVMe SSD", "Windows 11 Pro", "backlit keyboard", "up to 14 h battery life",
                        "Wi‑Fi 6E", "operating temperature 0–35 °C"],
            priceCents: 49_900...329_900, weightGrams: 1_100...4_800, widthMM: 280...420, depthMM: 180...290, heightMM: 12...35),
        ProductCategory(
            name: "Flat Screen Monitors", stems: ["Ergo Screen", "Flat Basic", "Flat Future", "Flat XL", "ViewMax"],
            variants: ["E-I", "E-II", "E-III", "24", "27", "32", "Curved"],
            fragments: ["Optimum Hi-Resolution max. 1920 x 1080 @ 85Hz", "Dot Pitch: 0.27mm", "2560 x 1440 IPS panel",
                        "response time ≤ 4 ms", "HDMI 2.1 and DisplayPort 1.4", "height-adjustable stand", "400 cd/m² brightness"],
            priceCents: 12_900...149_900, weightGrams: 2_500...9_800, widthMM: 530...820, depthMM: 60...250, heightMM: 320...560),
        ProductCategory(
            name: "Laser Printers", stems: ["Laser Professional", "Laser Basic", "Laser Allround", "PrintMaster"],
            variants: ["Eco", "Plus", "Duplex", "2000", "3000"],
            fragments: ["Print 2400 dpi image quality color documents", "up to 32 ppm (color) or 36 ppm (monochrome)",
                        "first-page-out-time of less than 8 seconds", "500 MHz processor and 128MB of memory",
                        "Ethernet and Wi‑Fi", "250-sheet input tray"],
            priceCents: 14_900...119_900, weightGrams: 7_000...28_000, widthMM: 380...520, depthMM: 350...480, heightMM: 220...400),
        ProductCategory(
            name: "Ink Jet Printers", stems: ["Ultra Jet", "Multi Print", "Multi Color", "Photo Jet"],
            variants: ["Super Color", "Mobile", "Super Highspeed", "Mini"],
            fragments: ["4800 dpi x 1200 dpi", "up to 35 ppm (mono) / up to 34 ppm (color)", "capacity: 250 sheets",
                        "Hi-Speed USB", "borderless photo printing", "scanner (216 x 297 mm)"],
            priceCents: 4_900...29_900, weightGrams: 2_400...9_000, widthMM: 360...460, depthMM: 250...390, heightMM: 140...250),
        ProductCategory(
            name: "Mice", stems: ["Cordless Mouse", "Speed Mouse", "Track Mouse", "Ergo Mouse", "Travel Mouse"],
            variants: ["", "II", "Plus", "Silent", "Pro"],
            fragments: ["Optical USB", "Color: Black", "Color: Blue", "5-button-functionality (incl. Scroll wheel)",
                        "Plug&Play", "1600 dpi sensor", "Bluetooth 5.0"],
            priceCents: 699...8_999, weightGrams: 60...160, widthMM: 55...75, depthMM: 95...130, heightMM: 30...45),
        ProductCategory(
            name: "Keyboards", stems: ["Ergonomic Keyboard", "Internet Keyboard", "Media Keyboard", "Mechanical Keyboard"],
            variants: ["", "DE", "US", "Nordic", "Pro"],
            fragments: ["Corded Keyboard with special keys for Internet Usability", "USB", "Plug&Play",
                        "German layout (QWERTZ, with Ä Ö Ü ß)", "Nordic layout (Æ Ø Å)", "backlit keys"],
            priceCents: 1_400...17_900, weightGrams: 400...1_300, widthMM: 360...480, depthMM: 120...230, heightMM: 20...45),
        ProductCategory(
            name: "Smartphones", stems: ["Smartphone Alpha", "Smartphone Beta", "Cepat", "Mini Phone"],
            variants: ["", "5G", "Plus", "Max", "Lite"],
            fragments: ["6.1\" OLED display", "128 GB storage", "dual SIM", "IP68", "48 MP camera", "4500 mAh battery"],
            priceCents: 19_900...129_900, weightGrams: 140...240, widthMM: 68...78, depthMM: 7...10, heightMM: 140...165),
        ProductCategory(
            name: "Tablets", stems: ["ITelO Tab", "Maxi Tablet", "Flip Pad"],
            variants: ["8", "10", "12", "Pro"],
            fragments: ["10.5\" Retina display", "64 GB storage", "LTE", "stylus included", "up to 10 h battery life"],
            priceCents: 14_900...119_900, weightGrams: 300...750, widthMM: 160...280, depthMM: 6...9, heightMM: 240...320),
        ProductCategory(
            name: "Speakers", stems: ["Sound Booster", "Blaster Extreme", "Flügel Speaker", "Bass Cube"],
            variants: ["", "2.1", "5.1", "Mini"],
            fragments: ["PC multimedia speakers", "5 Watt (RMS)", "frequency response 45 Hz – 20 kHz",
                        "signal-to-noise ratio ≥ 80 dB", "Bluetooth"],
            priceCents: 1_990...39_900, weightGrams: 300...6_000, widthMM: 80...300, depthMM: 80...300, heightMM: 120...420),
        ProductCategory(
            name: "Software", stems: ["Smart Office", "Smart Design", "Smart Network", "Power Editor"],
            variants: ["2024", "2025", "Home", "Business", "Enterprise"],
            fragments: ["Complete Office Suite", "Image editing and design", "licence for 5 devices",
                        "includes 1 year of updates", "download only"],
            priceCents: 2_900...89_900, weightGrams: 50...300, widthMM: 130...190, depthMM: 10...20, heightMM: 180...240),
        ProductCategory(
            name: "Headsets", stems: ["Headset Standard", "Headset Professional", "Comfort Talk"],
            variants: ["", "USB", "Wireless"],
            fragments: ["Noise-cancelling microphone", "over-ear", "40 mm drivers", "3.5 mm jack and USB-C"],
            priceCents: 1_900...29_900, weightGrams: 120...380, widthMM: 150...200, depthMM: 70...100, heightMM: 170...220),
        ProductCategory(
            name: "Accessories", stems: ["Mousepad", "Ergo Mousepad", "Designer Mousepad", "Universal card reader", "USB-C Hub"],
            variants: ["", "XL", "Special Edition"],
            fragments: ["Nice mouse pad with ITelO Logo", "anti-slip base", "7-in-1", "aluminium housing", "1 µm surface finish"],
            priceCents: 599...4_999, weightGrams: 50...400, widthMM: 90...400, depthMM: 5...300, heightMM: 2...20),
        ProductCategory(
            name: "Graphic Cards", stems: ["Proctra", "Gladiator", "Hurricane", "Thunder"],
            variants: ["X", "MX", "GX", "XTL"],
            fragments: ["PCI-E GDDR5 3072MB", "DVI Out, TV Out low-noise", "691 GFLOPS game-optimized", "ray tracing"],
            priceCents: 7_090...149_900, weightGrams: 400...1_800, widthMM: 110...140, depthMM: 40...60, heightMM: 240...340),
        ProductCategory(
            name: "Servers", stems: ["Server Basic", "Server Professional", "Server Power Pro"],
            variants: ["1U", "2U", "Tower"],
            fragments: ["Dual 2.6 GHz 16-core CPUs", "256 GB ECC RAM", "8 × 2 TB SAS", "redundant power supply",
                        "operating temperature 10–35 °C"],
            priceCents: 99_900...2_499_900, weightGrams: 12_000...32_000, widthMM: 430...450, depthMM: 600...800, heightMM: 44...440),
    ]

    /// Order and item notes. Some contain quotes, backslashes, tabs, line breaks and emoji.
    static let notes: [String] = [
        "EPM DG: Deliver as fast as possible",
        "Please deliver before the end of the quarter",
        "Rush order – call before delivery",
        "Lieferung bitte an Tor 3",
        "Livraison au quai n° 2, s'il vous plaît",
        "Customer's PO attached",
        "Ship with \"fragile\" label",
        "Kontakt: Jürgen Müller, Einkauf",
        "Line 1: partial delivery accepted\nLine 2: invoice separately",
        "Ref:\tC:\\Orders\\2024\\Q3",
        "Geschenkverpackung gewünscht 🎁",
        "Entrega en la recepción, pregunte por José",
        "Leave at O'Neil's reception",
        "Levering til lager i Århus",
    ]
}
