/// Country profiles (see `CountryProfile`). Names deliberately include non-ASCII letters
/// (Müller, Søren, José, Łukasz, Zoë) and apostrophes (O'Neil, D'Angelo, King's Road).
extension Vocabulary {
    static let countries: [CountryProfile] = [
        CountryProfile(
            code: "DE", currency: "EUR", phonePattern: "+49 6### ######", topLevelDomain: "de",
            legalForms: ["GmbH", "AG", "KG", "GmbH & Co. KG", "e.K."], utcOffsetMinutes: 60, weight: 22,
            cities: [
                CityProfile(name: "Walldorf", postalPattern: "6919#", streets: ["Dietmar-Hopp-Allee", "Hauptstraße", "Bahnhofstraße"]),
                CityProfile(name: "Berlin", postalPattern: "1####", streets: ["Calvinstraße", "Friedrichstraße", "Unter den Linden", "Kurfürstendamm"]),
                CityProfile(name: "München", postalPattern: "80###", streets: ["Leopoldstraße", "Maximilianstraße", "Sonnenstraße"]),
                CityProfile(name: "Köln", postalPattern: "50###", streets: ["Hohe Straße", "Aachener Straße", "Am Hof"]),
                CityProfile(name: "Düsseldorf", postalPattern: "40###", streets: ["Königsallee", "Kaiserswerther Straße"]),
                CityProfile(name: "Hamburg", postalPattern: "20###", streets: ["Mönckebergstraße", "Jungfernstieg", "Große Elbstraße"]),
            ],
            maleNames: ["Jürgen", "Michael", "Thomas", "Günther", "Lukas", "Matthias", "Jörg", "Stefan"],
            femaleNames: ["Dagmar", "Sabine", "Saskia", "Jutta", "Anna", "Bärbel", "Lea", "Käthe"],
            lastNames: ["Müller", "Schmidt", "Schröder", "Becker", "Weiß", "Groß", "Köhler", "Sommer", "Mayer", "Schulze", "Hoffmann", "Jäger"],
            companyWords: ["Technik", "Elektronik", "Handel", "Systeme", "Vertrieb", "Bürobedarf", "Werke"]),
        CountryProfile(
            code: "US", currency: "USD", phonePattern: "+1 @##-@##-####", topLevelDomain: "com",
            legalForms: ["Inc.", "LLC", "Corp.", "Co."], utcOffsetMinutes: -300, weight: 20,
            cities: [
                CityProfile(name: "Atlanta, Georgia", postalPattern: "303##", streets: ["Dunwoody Xing", "Peachtree Street", "Piedmont Avenue"]),
                CityProfile(name: "Wilmington, Delaware", postalPattern: "198##", streets: ["King Street", "Market Street"]),
                CityProfile(name: "New York", postalPattern: "100##", streets: ["Broadway", "5th Avenue", "Madison Avenue", "Wall Street"]),
                CityProfile(name: "Palo Alto, California", postalPattern: "943##", streets: ["Hillview Avenue", "University Avenue", "El Camino Real"]),
                CityProfile(name: "Chicago, Illinois", postalPattern: "606##", streets: ["Michigan Avenue", "State Street", "O'Hare Drive"]),
            ],
            maleNames: ["James", "Robert", "Franklin", "Michael", "Bob", "Daniel", "Kevin", "Tyler"],
            femaleNames: ["Maria", "Jennifer", "Linda", "Zoë", "Ashley", "Megan", "Olivia", "Renée"],
            lastNames: ["Smith", "Jones", "Brown", "Adams", "O'Neil", "D'Angelo", "Miller", "Davis", "García", "Nguyen", "O'Connor", "Johnson"],
            companyWords: ["Computing", "Services", "Industries", "Solutions", "Technologies", "Supply", "Networks"]),
        CountryProfile(
            code: "GB", currency: "GBP", phonePattern: "+44 20 #### ####", topLevelDomain: "co.uk",
            legalForms: ["Ltd.", "PLC", "LLP"], utcOffsetMinutes: 0, weight: 8,
            cities: [
                CityProfile(name: "London", postalPattern: "EC1A #BB", streets: ["King's Road", "Bishop's Bridge Road", "Oxford Street", "St John's Wood Road"]),
                CityProfile(name: "Manchester", postalPattern: "M# #AB", streets: ["Deansgate", "Portland Street"]),
                CityProfile(name: "Edinburgh", postalPattern: "EH# #QS", streets: ["Princes Street", "Queen's Drive"]),
            ],
            maleNames: ["Oliver", "Harry", "George", "William", "Alistair"],
            femaleNames: ["Amelia", "Charlotte", "Isla", "Emily", "Fiona"],
            lastNames: ["Taylor", "Wilson", "Evans", "McAllister", "O'Brien", "Thompson", "Wright"],
            companyWords: ["Trading", "Logistics", "Holdings", "Supplies", "Engineering"]),
        CountryProfile(
            code: "IE", currency: "EUR", phonePattern: "+353 1 ### ####", topLevelDomain: "ie",
            legalForms: ["Ltd.", "DAC", "Teoranta"], utcOffsetMinutes: 0, weight: 3,
            cities: [
                CityProfile(name: "Dublin", postalPattern: "D0# X###", streets: ["O'Connell Street", "Grafton Street", "St Stephen's Green"]),
                CityProfile(name: "Cork", postalPattern: "T12 ####", streets: ["Patrick's Hill", "Oliver Plunkett Street"]),
            ],
            maleNames: ["Seán", "Pádraig", "Ciarán", "Liam", "Eoin"],
            femaleNames: ["Siobhán", "Aoife", "Niamh", "Róisín", "Saoirse"],
            lastNames: ["O'Neil", "O'Sullivan", "Ó Briain", "Murphy", "Kelly", "Mac Giolla Phádraig", "Byrne"],
            companyWords: ["Trading", "Software", "Distribution", "Services"]),
        CountryProfile(
            code: "FR", currency: "EUR", phonePattern: "+33 1 ## ## ## ##", topLevelDomain: "fr",
            legalForms: ["S.A.", "SARL", "SAS"], utcOffsetMinutes: 60, weight: 7,
            cities: [
                CityProfile(name: "Paris", postalPattern: "750##", streets: ["Rue du Faubourg Saint-Honoré", "Avenue des Champs-Élysées", "Boulevard Haussmann"]),
                CityProfile(name: "Lyon", postalPattern: "6900#", streets: ["Rue de la République", "Quai Saint-Antoine"]),
                CityProfile(name: "Orléans", postalPattern: "450##", streets: ["Rue Jeanne-d'Arc", "Rue de Bourgogne"]),
            ],
            maleNames: ["François", "Jérôme", "Alain", "Benoît", "Noël", "Théo"],
            femaleNames: ["Chloé", "Émilie", "Hélène", "Céline", "Zoé", "Élodie"],
            lastNames: ["Dubois", "Lefèvre", "Chevalier", "Moreau", "D'Arcy", "Girard", "Bézier"],
            companyWords: ["Électronique", "Informatique", "Distribution", "Réseaux", "Télécom"]),
        CountryProfile(
            code: "ES", currency: "EUR", phonePattern: "+34 91 ### ## ##", topLevelDomain: "es",
            legalForms: ["S.A.", "S.L."], utcOffsetMinutes: 60, weight: 5,
            cities: [
                CityProfile(name: "Madrid", postalPattern: "280##", streets: ["Calle de Alcalá", "Gran Vía", "Paseo de la Castellana"]),
                CityProfile(name: "Sevilla", postalPattern: "410##", streets: ["Calle Sierpes", "Avenida de la Constitución"]),
                CityProfile(name: "A Coruña", postalPattern: "150##", streets: ["Rúa Real", "Avenida da Mariña"]),
            ],
            maleNames: ["José", "Jorge", "Raúl", "Andrés", "Iñigo", "Álvaro"],
            femaleNames: ["María", "Lucía", "Begoña", "Inés", "Ángela", "Núria"],
            lastNames: ["García", "Fernández", "Vélez", "Muñoz", "Pérez", "Ibáñez", "Nuñez"],
            companyWords: ["Telecomunicaciones", "Sistemas", "Comercial", "Distribuciones", "Tecnología"]),
        CountryProfile(
            code: "DK", currency: "DKK", phonePattern: "+45 ## ## ## ##", topLevelDomain: "dk",
            legalForms: ["A/S", "ApS"], utcOffsetMinutes: 60, weight: 3,
            cities: [
                CityProfile(name: "København", postalPattern: "1###", streets: ["Strøget", "Nørregade", "Østerbrogade", "Vesterbrogade"]),
                CityProfile(name: "Århus", postalPattern: "80##", streets: ["Søndergade", "Åboulevarden"]),
            ],
            maleNames: ["Søren", "Jørgen", "Mads", "Anders", "Bjørn"],
            femaleNames: ["Mette", "Sørine", "Ida", "Maja", "Åse"],
            lastNames: ["Østergaard", "Søndergaard", "Jensen", "Nielsen", "Kjærgaard", "Hansen"],
            companyWords: ["Teknik", "Handel", "Systemer", "Elektronik"]),
        CountryProfile(
            code: "AT", currency: "EUR", phonePattern: "+43 662 ######", topLevelDomain: "at",
            legalForms: ["GmbH", "AG", "OG"], utcOffsetMinutes: 60, weight: 3,
            cities: [
                CityProfile(name: "Salzburg", postalPattern: "50##", streets: ["Aiglhofstraße", "Getreidegasse", "Linzer Gasse"]),
                CityProfile(name: "Wien", postalPattern: "1###", streets: ["Kärntner Straße", "Mariahilfer Straße", "Währinger Straße"]),
            ],
            maleNames: ["Lukas", "Florian", "Jürgen", "Matthäus"],
            femaleNames: ["Johanna", "Theresia", "Lena", "Jülide"],
            lastNames: ["Gruber", "Huber", "Pölzl", "Wagner", "Strauß", "Müller"],
            companyWords: ["Systeme", "Technik", "Handel", "Elektro"]),
        CountryProfile(
            code: "CH", currency: "CHF", phonePattern: "+41 44 ### ## ##", topLevelDomain: "ch",
            legalForms: ["AG", "GmbH", "SA", "Sàrl"], utcOffsetMinutes: 60, weight: 3,
            cities: [
                CityProfile(name: "Zürich", postalPattern: "80##", streets: ["Bahnhofstrasse", "Löwenstrasse", "Seefeldstrasse"]),
                CityProfile(name: "Genève", postalPattern: "12##", streets: ["Rue du Rhône", "Quai du Mont-Blanc"]),
            ],
            maleNames: ["Beat", "Urs", "Rémy", "Reto"],
            femaleNames: ["Regula", "Ursula", "Anaïs", "Nadine"],
            lastNames: ["Käser", "Brunner", "Zürcher", "Favre", "Bühler"],
            companyWords: ["Präzision", "Systeme", "Informatique", "Handels"]),
        CountryProfile(
            code: "PL", currency: "PLN", phonePattern: "+48 12 ### ## ##", topLevelDomain: "pl",
            legalForms: ["Sp. z o.o.", "S.A."], utcOffsetMinutes: 60, weight: 3,
            cities: [
                CityProfile(name: "Kraków", postalPattern: "31-0##", streets: ["ulica Floriańska", "ulica Grodzka", "Rynek Główny"]),
                CityProfile(name: "Łódź", postalPattern: "90-###", streets: ["ulica Piotrkowska", "aleja Kościuszki"]),
            ],
            maleNames: ["Łukasz", "Paweł", "Wojciech", "Jakub"],
            femaleNames: ["Małgorzata", "Agnieszka", "Żaneta", "Ewa"],
            lastNames: ["Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Łukaszewicz"],
            companyWords: ["Elektronika", "Handel", "Systemy", "Dystrybucja"]),
        CountryProfile(
            code: "SE", currency: "SEK", phonePattern: "+46 31 ### ## ##", topLevelDomain: "se",
            legalForms: ["AB", "HB"], utcOffsetMinutes: 60, weight: 2,
            cities: [
                CityProfile(name: "Göteborg", postalPattern: "41# ##", streets: ["Kungsgatan", "Östra Hamngatan", "Södra Vägen"]),
                CityProfile(name: "Malmö", postalPattern: "21# ##", streets: ["Södergatan", "Stortorget"]),
            ],
            maleNames: ["Björn", "Åke", "Göran", "Lars"],
            femaleNames: ["Åsa", "Ingrid", "Märta", "Linnéa"],
            lastNames: ["Åberg", "Lindström", "Öberg", "Svensson", "Ångström"],
            companyWords: ["Teknik", "Handel", "Elektronik", "Data"]),
        CountryProfile(
            code: "BR", currency: "BRL", phonePattern: "+55 11 #####-####", topLevelDomain: "com.br",
            legalForms: ["Ltda.", "S.A."], utcOffsetMinutes: -180, weight: 4,
            cities: [
                CityProfile(name: "São Paulo", postalPattern: "01310-###", streets: ["Avenida Paulista", "Rua Augusta", "Rua da Consolação"]),
                CityProfile(name: "Belém", postalPattern: "66###-###", streets: ["Avenida Presidente Vargas", "Travessa Padre Eutíquio"]),
            ],
            maleNames: ["João", "Sebastião", "Antônio", "Luís"],
            femaleNames: ["Conceição", "Fabíola", "Letícia", "Mônica"],
            lastNames: ["Gonçalves", "Araújo", "Simões", "Magalhães", "Conceição"],
            companyWords: ["Comércio", "Informática", "Distribuidora", "Soluções"]),
        CountryProfile(
            code: "AR", currency: "ARS", phonePattern: "+54 11 ####-####", topLevelDomain: "com.ar",
            legalForms: ["S.A.", "S.R.L."], utcOffsetMinutes: -180, weight: 2,
            cities: [
                CityProfile(name: "Buenos Aires", postalPattern: "1###", streets: ["Av. Libertador", "Avenida de Mayo", "Calle Florida"]),
            ],
            maleNames: ["Jorge", "Martín", "Agustín", "Joaquín"],
            femaleNames: ["Sofía", "Valentina", "Belén", "Florencia"],
            lastNames: ["Vélez", "Giménez", "Benítez", "Domínguez", "Sáenz"],
            companyWords: ["Telecomunicaciones", "Electrónica", "Sistemas"]),
        CountryProfile(
            code: "JP", currency: "JPY", phonePattern: "+81 3-####-####", topLevelDomain: "co.jp",
            legalForms: ["K.K.", "G.K."], utcOffsetMinutes: 540, weight: 4,
            cities: [
                CityProfile(name: "Tokyo", postalPattern: "100-00##", streets: ["Marunouchi", "Ginza", "Nihonbashi"]),
                CityProfile(name: "Ōsaka", postalPattern: "530-00##", streets: ["Umeda", "Dōjima"]),
            ],
            maleNames: ["Hiroshi", "Kenji", "Takashi", "Yūki"],
            femaleNames: ["Yuki", "Haruka", "Aiko", "Sakura"],
            lastNames: ["Yamamoto", "Satō", "Suzuki", "Takahashi", "Itō"],
            companyWords: ["Denki", "Shōji", "Systems", "Electronics"]),
        CountryProfile(
            code: "IN", currency: "INR", phonePattern: "+91 80 #### ####", topLevelDomain: "in",
            legalForms: ["Pvt. Ltd.", "Ltd."], utcOffsetMinutes: 330, weight: 4,
            cities: [
                CityProfile(name: "Bengaluru", postalPattern: "5600##", streets: ["Whitefield Main Road", "M.G. Road", "Brigade Road"]),
                CityProfile(name: "Mumbai", postalPattern: "4000##", streets: ["Marine Drive", "Nariman Point"]),
            ],
            maleNames: ["Arjun", "Rahul", "Venkatesh", "Sanjay"],
            femaleNames: ["Priya", "Ananya", "Lakshmi", "Deepa"],
            lastNames: ["Sharma", "Iyer", "Reddy", "Patel", "Krishnan"],
            companyWords: ["Infotech", "Technologies", "Traders", "Electronics"]),
        CountryProfile(
            code: "CA", currency: "CAD", phonePattern: "+1 514-@##-####", topLevelDomain: "ca",
            legalForms: ["Inc.", "Ltée", "Corp."], utcOffsetMinutes: -300, weight: 3,
            cities: [
                CityProfile(name: "Montréal", postalPattern: "H3B #A#", streets: ["Rue Sainte-Catherine", "Boulevard René-Lévesque"]),
                CityProfile(name: "Toronto", postalPattern: "M5V #E#", streets: ["Queen's Quay", "Bay Street", "King Street West"]),
            ],
            maleNames: ["Étienne", "Mathieu", "Connor", "Gaëtan"],
            femaleNames: ["Geneviève", "Maëlle", "Brooke", "Mélanie"],
            lastNames: ["Tremblay", "Gagné", "Côté", "O'Reilly", "Bélanger"],
            companyWords: ["Technologies", "Distribution", "Électronique", "Services"]),
    ]
}
